/**
 * UTF-8 encoding and decoding that works everywhere the engine runs: the platform's TextEncoder and
 * TextDecoder where they exist (Node, browsers: native and fastest), and a plain JavaScript codec where
 * they do not (Google Apps Script has neither).
 */

interface Codec {
  /** Writes `text` into `into` (room for 3 bytes per UTF-16 unit) and returns the bytes written. */
  encodeInto(text: string, into: Uint8Array): number;
  decode(bytes: Uint8Array): string;
}

/** The platform's codec classes, where it has them (feature-detected, as vector-scan.ts detects WebAssembly). */
interface HostCodecs {
  TextEncoder?: new () => { encodeInto(text: string, into: Uint8Array): { written: number } };
  TextDecoder?: new (label: string) => { decode(bytes: Uint8Array): string };
}

function nativeCodec(): Codec | null {
  const host = globalThis as HostCodecs;
  if (!host.TextEncoder || !host.TextDecoder) return null;
  const encoder = new host.TextEncoder();
  const decoder = new host.TextDecoder('utf-8');
  return { encodeInto: (text, into) => encoder.encodeInto(text, into).written, decode: (bytes) => decoder.decode(bytes) };
}

/** UTF-8 by hand: lone surrogates become U+FFFD, as TextEncoder does; invalid bytes decode to U+FFFD. */
const portable: Codec = {
  encodeInto(text, into) {
    let at = 0;
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = text.charCodeAt(i + 1);
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          i++;
        } else code = 0xfffd;
      }
      if (code < 0x80) into[at++] = code;
      else if (code < 0x800) {
        into[at++] = 0xc0 | (code >> 6);
        into[at++] = 0x80 | (code & 0x3f);
      } else if (code < 0x10000) {
        into[at++] = 0xe0 | (code >> 12);
        into[at++] = 0x80 | ((code >> 6) & 0x3f);
        into[at++] = 0x80 | (code & 0x3f);
      } else {
        into[at++] = 0xf0 | (code >> 18);
        into[at++] = 0x80 | ((code >> 12) & 0x3f);
        into[at++] = 0x80 | ((code >> 6) & 0x3f);
        into[at++] = 0x80 | (code & 0x3f);
      }
    }
    return at;
  },
  decode(bytes) {
    const units: number[] = [];
    let text = '';
    for (let i = 0; i < bytes.length; ) {
      const first = bytes[i] ?? 0;
      const need = first < 0x80 ? 0 : first >= 0xf0 && first < 0xf8 ? 3 : first >= 0xe0 ? 2 : first >= 0xc0 ? 1 : -1;
      let code = need === 0 ? first : need === 1 ? first & 0x1f : need === 2 ? first & 0x0f : first & 0x07;
      // Continuation bytes that follow, up to the number needed.
      let seen = 0;
      while (need > 0 && seen < need && ((bytes[i + 1 + seen] ?? 0) & 0xc0) === 0x80 && i + 1 + seen < bytes.length) {
        code = (code << 6) | ((bytes[i + 1 + seen] ?? 0) & 0x3f);
        seen++;
      }
      if (need < 0 || seen < need) {
        // One replacement for a bad lead byte, or for a lead byte and the continuations it did get.
        units.push(0xfffd);
        i += 1 + seen;
      } else {
        if (code >= 0x10000) units.push(0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff));
        else units.push(code);
        i += need + 1;
      }
      // fromCharCode takes its arguments on the stack: flush in bounded chunks.
      if (units.length >= 4096) text += String.fromCharCode(...units.splice(0));
    }
    return text + String.fromCharCode(...units);
  },
};

/** The codec of this platform (the JavaScript one without TextEncoder / TextDecoder). */
export const utf8: Codec = nativeCodec() ?? portable;

/** The hand-written codec, for tests that check it against the platform's. */
export const portableUtf8: Codec = portable;
