/**
 * An estimate of a text's tokens for the answerer's context budget in Google Sheets, where the server's
 * tokenizer (gpt-tokenizer, o200k) cannot run: its vocabulary would take the bundle over its 6 MB budget
 * (README: "The Sheets bundle's size") and it needs TextEncoder, which Apps Script lacks.
 *
 * A character of Chinese or Japanese script counts 0.85 tokens, of Korean 0.6, a run of digits one per three
 * digits, and everything else one per four characters. Against o200k on prose (test/appsscript/
 * token-estimate.test.ts: English, German, French, Russian, Chinese, Japanese, Korean) it is within
 * about 15 %, mostly above; text made mostly of numbers counts about 30 % low.
 */
const COUNTED_APART = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|\p{Script=Hangul}|\d+/gu;

export function estimateTokens(text: string): number {
  let apart = 0;
  let tokens = 0;
  for (const [piece] of text.matchAll(COUNTED_APART)) {
    apart += piece.length;
    const code = piece.charCodeAt(0);
    if (code >= 0x30 && code <= 0x39) tokens += Math.ceil(piece.length / 3);
    else tokens += /\p{Script=Hangul}/u.test(piece) ? 0.6 : 0.85;
  }
  return Math.ceil(tokens + (text.length - apart) / 4);
}
