/**
 * A private nginx (Debian's `nginx-light`; `.ci/run` installs it) in front
 * of the given loopback ports, on a free port of its own, with the proxy
 * configuration the README gives operators (`load_balancer.conf` below is
 * written from `nginxConfig`). Where nginx is missing the tests that need
 * it are ignored, unless `SOURCEGRAPH_REQUIRE_SYSTEM_TOOLS=1`.
 *
 * @module
 */

import { join } from "node:path";
import { removeDir, tempDir } from "./git_repo.ts";
import { freePort } from "./sourcegraph_service.ts";
import { systemTool } from "./system_tools.ts";

/** The nginx binary, or null (thrown in CI). */
export function nginxBin(): string | null {
  return systemTool(["/usr/sbin/nginx"], {
    what: "nginx",
    install: "apt-get install nginx-light",
  });
}

/**
 * The `http` block of a load balancer over `upstreams` listening on
 * `listen`: a failed connection or a replica that went away before it
 * answered is retried on the next replica (reads are idempotent; admin
 * writes carry an Idempotency-Key).
 */
export function nginxConfig(options: {
  listen: string;
  upstreams: string[];
  temp: string;
}): string {
  return `
  upstream sourcegraph {
${
    options.upstreams.map((address) => `    server ${address} max_fails=1 fail_timeout=2s;`).join(
      "\n",
    )
  }
    keepalive 32;
  }
  client_body_temp_path ${options.temp}/body;
  proxy_temp_path ${options.temp}/proxy;
  fastcgi_temp_path ${options.temp}/fastcgi;
  uwsgi_temp_path ${options.temp}/uwsgi;
  scgi_temp_path ${options.temp}/scgi;
  server {
    listen ${options.listen};
    client_max_body_size 4m;
    location / {
      proxy_pass http://sourcegraph;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_buffering off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 180s;
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 3;
    }
  }`;
}

/** A running nginx. */
export interface NginxServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts nginx over `upstreams` (`host:port` each). */
export async function startNginx(bin: string, upstreams: string[]): Promise<NginxServer> {
  const dir = await tempDir("sg-nginx-");
  const port = freePort();
  const config = `
daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
${Deno.uid() === 0 ? "user nobody nogroup;" : ""}
events { worker_connections 512; }
http {
  access_log off;
${nginxConfig({ listen: `127.0.0.1:${port}`, upstreams, temp: dir })}
}
`;
  const path = join(dir, "nginx.conf");
  await Deno.writeTextFile(path, config);
  // Workers run as nobody under root and keep request bodies in this folder.
  if (Deno.uid() === 0) await Deno.chown(dir, 65534, 65534);
  const child = new Deno.Command(bin, {
    args: ["-c", path, "-p", dir, "-e", join(dir, "error.log")],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 500; i++) {
    const up = await Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => {
      conn.close();
      return true;
    }, () => false);
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // gone
      }
      await child.status;
      await child.stderr.cancel().catch(() => {});
      await removeDir(dir);
    },
  };
}
