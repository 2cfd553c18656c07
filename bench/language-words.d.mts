// Types of language-words.mjs for the TypeScript tests (the project does not type-check JavaScript).
export declare function fold(word: string): string;
export declare function isStopWord(word: string): boolean;
export declare function queryKeywords(text: string): string[];
export declare function contentWords(text: string): string[];
export declare function stemsOf(word: string): { de: string; en: string };
export declare function sharedWords(query: string, text: string): string[];
