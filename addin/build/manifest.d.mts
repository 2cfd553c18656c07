// Types of manifest.mjs for the TypeScript tests (the project does not type-check JavaScript).
export declare const DEV_ORIGIN: 'https://localhost:3000';
export declare function manifestFor(template: string, origin: string): string;
export declare function readManifestTemplate(): string;
