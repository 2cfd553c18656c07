/** The webpack loader's signature, for the tests that run it directly. */
export default function trimEmbeddings(this: { getOptions(): { keep: number; root: string }; addDependency(file: string): void }, source: string): string;
