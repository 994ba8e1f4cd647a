/**
 * An upstream Git host for tests: the bare repositories of one folder over
 * Git's smart HTTP protocol on a free loopback port, counting the fetches
 * each repository answers (one ref advertisement per fetch).
 *
 * @module
 */

import { join } from "node:path";
import { uploadPackAdvertisement, uploadPackResult } from "../../shared/git_upload_pack.ts";

/** A running upstream. */
export interface CountingUpstream {
  /** `http://127.0.0.1:port/<name>.git` */
  url(name: string): string;
  /** Fetches of `<name>.git` so far. */
  fetches(name: string): number;
  stop(): Promise<void>;
}

/** Serves the bare repositories `<folder>/<name>.git`. */
export function startCountingUpstream(folder: string): CountingUpstream {
  const counts = new Map<string, number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const match = /^\/([A-Za-z0-9_-]+)\.git\/(info\/refs|git-upload-pack)$/.exec(url.pathname);
      if (!match) return new Response("not found", { status: 404 });
      const [, name, route] = match;
      const repository = join(folder, `${name}.git`);
      if (route === "info/refs") {
        counts.set(name, (counts.get(name) ?? 0) + 1);
        return await uploadPackAdvertisement(repository);
      }
      return await uploadPackResult(repository, {
        body: new Uint8Array(await request.arrayBuffer()),
        gzip: request.headers.get("content-encoding") === "gzip",
      });
    },
  );
  const port = server.addr.port;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}.git`,
    fetches: (name) => counts.get(name) ?? 0,
    stop: () => server.shutdown(),
  };
}
