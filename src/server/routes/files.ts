/**
 * /v1/download's files: written to the object store (downloads.ts) by the v1 route, linked on the public
 * URL or the address the request's connection reached, and served here at /v1/files/* — the signature is
 * the credential (a browser or a spreadsheet opens the links as they are).
 */
import type { FastifyBaseLogger, FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { DownloadFormat } from '../../contract/v1.js';
import { LegacyError, type DownloadContent } from '../../engine/v1/v1-service.js';
import { connectionOrigin, DirectoryDownloadStore, DOWNLOAD_CONTENT_TYPES, DownloadIdError, DownloadLimitError, publicBaseUrl, type DownloadLimits, type DownloadStore } from '../downloads.js';
import { HttpProblem, retryAfter } from '../problem.js';

const NOT_CONFIGURED = 'downloads are not configured on this server';

export interface DownloadsOptions {
  /** Where the files are kept (the database's store, shared by servers); without it, the object-store directory below. */
  downloadStore?: DownloadStore | undefined;
  /** The object-store directory; without it (and without a store), downloads answer 503 and links 403. */
  filesDir?: string | undefined;
  downloadLimits?: Partial<DownloadLimits> | undefined;
  /** The URL clients reach the server at; unset: links on the address each request's connection reached, never on the Host header. */
  publicUrl?: string | undefined;
}

/** The download files of a server: its store (none when not configured) and the base of its links. */
export class Downloads {
  private constructor(
    private readonly store: DownloadStore | null,
    private readonly linkBase: string | null,
  ) {}

  /** Checks the public URL and opens the store (its expiry sweep reports failures to `log`). */
  static open(options: DownloadsOptions, now: () => number, log: FastifyBaseLogger): Downloads {
    const linkBase = options.publicUrl === undefined ? null : publicBaseUrl(options.publicUrl);
    const onError = (error: Error): void => {
      log.warn({ err: error }, 'deleting expired download files failed');
    };
    const store = options.downloadStore ?? (options.filesDir ? DirectoryDownloadStore.open(options.filesDir, now, { ...(options.downloadLimits ? { limits: options.downloadLimits } : {}), onError }) : null);
    return new Downloads(store, linkBase);
  }

  /** A 503 on a server without a store: checked before a download does any work. */
  ensureConfigured(): void {
    this.configuredStore();
  }

  private configuredStore(): DownloadStore {
    if (!this.store) throw new HttpProblem(503, NOT_CONFIGURED);
    return this.store;
  }

  /**
   * Writes a download's file for its owner (`key:<id>` or `user:<sub>`): a bad download_id is v1's 400, the
   * caller's cap a 429 and the store's a 503, with Retry-After when a slot frees by waiting.
   */
  async write(content: DownloadContent, owner: string, request: FastifyRequest): Promise<{ url: string; filePath: string }> {
    let written: { filePath: string; link: string };
    try {
      written = await this.configuredStore().write(content, owner);
    } catch (error) {
      if (error instanceof DownloadIdError) throw new LegacyError(error.message);
      if (error instanceof DownloadLimitError) throw new HttpProblem(error.scope === 'caller' ? 429 : 503, error.message, retryAfter(error.retryAfterSeconds));
      throw error;
    }
    const base = this.linkBase ?? connectionOrigin(request.protocol, request.socket.localAddress, request.socket.localPort);
    return { url: `${base}${written.link}`, filePath: written.filePath };
  }

  /** The bytes of the file a link names, or why it is refused. */
  read(path: string, expires: string | undefined, signature: string | undefined): Promise<{ bytes: Buffer } | { refused: string }> {
    return this.store ? this.store.read(path, expires, signature) : Promise.resolve({ refused: NOT_CONFIGURED });
  }

  /** Stops the store's expiry sweep. */
  close(): void {
    this.store?.close();
  }
}

interface FileRoute {
  Params: { '*'?: string };
  Querystring: { expires?: string; signature?: string };
}

export const fileRoutes: FastifyPluginCallback<{ downloads: Downloads }> = (app, { downloads }, done) => {
  // The sweep timer is unref'd; closing the server stops it too.
  app.addHook('onClose', (_instance, closed) => {
    downloads.close();
    closed();
  });

  app.get<FileRoute>('/v1/files/*', async (request, reply) => {
    const path = request.params['*'] ?? '';
    const { expires, signature } = request.query;
    const found = await downloads.read(path, expires, signature);
    if ('refused' in found) return reply.code(403).send({ detail: found.refused });
    const format = (path.split('.').pop() ?? 'tsv') as DownloadFormat;
    return reply
      .type(DOWNLOAD_CONTENT_TYPES[format])
      .header('content-disposition', `attachment; filename="${path.split('/').pop() ?? 'download'}"`)
      .send(found.bytes);
  });
  done();
};
