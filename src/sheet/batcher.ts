/**
 * Many single-cell ORG.FETCH calls within a short window become one request: calls are queued, and when
 * the window closes the distinct domains go out in chunks of at most 5,000; each waiting cell gets its row
 * (or null: not found). A failed request rejects every cell that waited for it — no cell is left busy.
 * The timer is injected (the portable core touches no host timer; Excel and Node pass setTimeout).
 */
import { fetchChunks, type Row } from './fetch-rows.js';

export interface BatcherOptions {
  /** One request for these distinct domains (at most 5,000): the rows found, by domain. */
  fetch: (domains: string[]) => Promise<ReadonlyMap<string, Row>>;
  /** Runs `run` after `ms` milliseconds. */
  schedule: (run: () => void, ms: number) => void;
  /** How long calls are collected before one request goes out (default 50 ms). */
  windowMs?: number;
}

interface Waiting {
  resolve: (row: Row | null) => void;
  reject: (error: unknown) => void;
}

export class FetchBatcher {
  private queue = new Map<string, Waiting[]>();
  private scheduled = false;

  constructor(private readonly options: BatcherOptions) {}

  /** The row of one normalised domain (null when the index lacks it). */
  request(domain: string): Promise<Row | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.queue.get(domain) ?? [];
      waiting.push({ resolve, reject });
      this.queue.set(domain, waiting);
      if (!this.scheduled) {
        this.scheduled = true;
        this.options.schedule(() => void this.flush(), this.options.windowMs ?? 50);
      }
    });
  }

  private async flush(): Promise<void> {
    const queue = this.queue;
    this.queue = new Map();
    this.scheduled = false;
    await Promise.all(
      fetchChunks([...queue.keys()]).map(async (chunk) => {
        try {
          const rows = await this.options.fetch(chunk);
          for (const domain of chunk) for (const waiting of queue.get(domain) ?? []) waiting.resolve(rows.get(domain) ?? null);
        } catch (error) {
          for (const domain of chunk) for (const waiting of queue.get(domain) ?? []) waiting.reject(error);
        }
      }),
    );
  }
}
