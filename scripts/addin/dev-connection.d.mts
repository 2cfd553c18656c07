// Types of dev-connection.mjs for the TypeScript tests (the project does not type-check JavaScript).
import type { IncomingMessage, ServerResponse } from 'node:http';

export declare const DEV_CONNECTION_PATH: '/dev-connection.json';

export interface DevConnectionDocument {
  serviceUrl: string;
  apiKey?: string;
  accessToken?: string;
}

export interface DevConnection {
  serviceUrl: string;
  read(): Promise<DevConnectionDocument>;
}

export declare function devConnectionOf(args: readonly string[], options?: { cwd?: string; env?: Record<string, string | undefined> }): DevConnection | null;

export declare function answerDevConnection(request: IncomingMessage, response: ServerResponse, connection: DevConnection): Promise<void>;
