export function americanSpelling(word: string): string;
export function lookupForms(text: string): Set<string>;
