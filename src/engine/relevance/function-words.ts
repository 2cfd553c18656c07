/**
 * The function words of English and German: words that carry no topic of their own. One list per
 * language, read by the embedder (they tell a text's language; a German text's are dropped) and by the
 * question answerer (a question's and a sentence's content words are the other ones).
 */

/** German function words, spelt plain (lower case, umlauts and accents stripped, ß → ss: "fur", "uber"). */
export const GERMAN_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'der die das den dem des ein eine einen einem einer eines und oder aber sondern denn doch mit ohne fur von vom zu zum zur ' +
    'im in ins an am auf aus bei beim nach vor uber unter zwischen durch gegen um bis seit ab als wie wenn weil dass ob ' +
    'ist sind war waren wird werden wurde wurden hat haben hatte hatten kann konnen muss mussen soll sollen will wollen mochte ' +
    'ich du er sie es wir ihr mich mir dich dir sich uns euch ihn ihm ihnen mein meine meinen unser unsere unseren ihre ihren ' +
    'sein seine seinen dieser diese dieses diesen welche welcher welches was wer wo wann warum wieso wohin woher ' +
    'nicht kein keine keinen auch noch schon nur sehr ganz gern gerne hier dort da so dann jetzt immer etwas alle allen jede jeden ' +
    'man mehr viel viele vielen bitte gibt einfach'
  ).split(' '),
);

/** English function words, lower case. */
export const ENGLISH_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'the a an and or but of to in on at for from with without by about into over after before under between through ' +
    'is are was were be been being has have had do does did can could will would should must may might ' +
    'i you he she it we they me him her us them my your his its our their this that these those which who whom whose ' +
    'what where when why how not no all any some more most very just also only than then there here so such who'
  ).split(' '),
);
