/**
 * A Git smart-HTTP server for tests: `git http-backend` (CGI) behind a
 * Deno.serve on a loopback port that requires HTTP Basic authentication
 * with a token (the user name is ignored, as code hosts do for tokens). The
 * token can be changed (rotation), and fetches can be held open for a while
 * so a test can look at the processes of a sync in flight.
 *
 * @module
 */

/** A running server. */
export interface GitHttpServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** The token accepted from now on. */
  setToken(token: string): void;
  /** Holds every upload-pack POST this long before answering (0: none). */
  setHoldMs(ms: number): void;
  /** Calls that arrived with a valid token. */
  authorized: number;
  /** Resolves when a held request has arrived (reset by each call). */
  held(): Promise<void>;
  close(): Promise<void>;
}

/** Serves the bare repositories below `root` (as `/<name>.git`). */
export function serveGitHttp(root: string, options: { token: string }): GitHttpServer {
  let token = options.token;
  let holdMs = 0;
  let arrived: () => void = () => {};
  let arrival = new Promise<void>((resolve) => (arrived = resolve));
  const state = { authorized: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const header = request.headers.get("authorization") ?? "";
      const given = header.startsWith("Basic ")
        ? atob(header.slice(6)).split(":").slice(1).join(":")
        : null;
      if (given !== token) {
        await request.body?.cancel();
        return new Response("authentication required\n", {
          status: 401,
          headers: { "www-authenticate": 'Basic realm="git"' },
        });
      }
      state.authorized++;
      if (holdMs > 0 && request.method === "POST" && url.pathname.endsWith("/git-upload-pack")) {
        arrived();
        await new Promise((resolve) => setTimeout(resolve, holdMs));
      }
      const child = new Deno.Command("git", {
        args: ["http-backend"],
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: "1",
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1),
          REQUEST_METHOD: request.method,
          CONTENT_TYPE: request.headers.get("content-type") ?? "",
          HTTP_CONTENT_ENCODING: request.headers.get("content-encoding") ?? "",
          REMOTE_USER: "token",
          REMOTE_ADDR: "127.0.0.1",
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_CONFIG_GLOBAL: "/dev/null",
        },
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new Uint8Array(await request.arrayBuffer()));
      await writer.close();
      const output = new Uint8Array(await new Response(child.stdout).arrayBuffer());
      await child.status;
      // CGI: headers, a blank line, the body.
      let split = -1;
      for (let i = 0; i + 3 < output.length; i++) {
        if (
          output[i] === 13 && output[i + 1] === 10 && output[i + 2] === 13 && output[i + 3] === 10
        ) {
          split = i;
          break;
        }
      }
      if (split === -1) return new Response("bad gateway\n", { status: 502 });
      const headers = new Headers();
      let status = 200;
      for (const line of new TextDecoder().decode(output.subarray(0, split)).split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon === -1) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else headers.append(name, value);
      }
      return new Response(output.subarray(split + 4), { status, headers });
    },
  );
  const port = (server.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}`,
    setToken: (next) => (token = next),
    setHoldMs: (ms) => (holdMs = ms),
    get authorized() {
      return state.authorized;
    },
    held: () => {
      arrival = new Promise<void>((resolve) => (arrived = resolve));
      return arrival;
    },
    close: () => server.shutdown(),
  };
}
