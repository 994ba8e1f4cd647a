/**
 * An OpenSSH server for tests (Debian's `openssh-server`; `.ci/run`
 * installs it): `sshd -D` on a free loopback port with a configuration,
 * host key and authorized key of its own in a temporary folder, key
 * authentication only, logins as the current user. Where no sshd is found
 * the tests that need it are ignored, unless `SOURCEGRAPH_REQUIRE_SYSTEM_TOOLS=1`
 * (set by `.ci/run`) makes that a failure.
 *
 * @module
 */

import { join } from "node:path";
import { freePort } from "./sourcegraph_service.ts";
import { systemTool } from "./system_tools.ts";

const SSHD = "/usr/sbin/sshd";

/** Whether sshd is installed (throws in CI when it is not). */
export function haveSshd(): boolean {
  return systemTool([SSHD], { what: "sshd", install: "apt-get install openssh-server" }) !== null;
}

/** A running sshd. */
export interface SshServer {
  port: number;
  user: string;
  /** The known_hosts line of its host key. */
  knownHosts: string;
  stop(): Promise<void>;
}

async function run(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${command}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** Makes an ed25519 key pair at `path` (and `path.pub`); returns the public key line. */
export async function makeKey(path: string): Promise<string> {
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", path]);
  return (await Deno.readTextFile(`${path}.pub`)).trim();
}

/** Starts sshd in `dir`, accepting `authorizedKeys`. */
export async function startSshd(
  dir: string,
  options: { authorizedKeys: string[] },
): Promise<SshServer> {
  const port = freePort();
  const user = await run("id", ["-un"]);
  const hostKey = join(dir, "host_key");
  const hostPublic = await makeKey(hostKey);
  await Deno.writeTextFile(join(dir, "authorized_keys"), options.authorizedKeys.join("\n") + "\n", {
    mode: 0o600,
  });
  const config = join(dir, "sshd_config");
  await Deno.writeTextFile(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      "PermitRootLogin prohibit-password",
      `AllowUsers ${user}`,
      "",
    ].join("\n"),
  );
  if (Deno.uid?.() === 0) await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  const child = new Deno.Command(SSHD, {
    args: ["-D", "-e", "-f", config],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  for (let i = 0; i < 100; i++) {
    const open = await Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => {
      conn.close();
      return true;
    }, () => false);
    if (open) break;
    if (i === 99) throw new Error(`sshd did not start: ${await stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    user,
    knownHosts: `[127.0.0.1]:${port} ${hostPublic.split(" ").slice(0, 2).join(" ")}`,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // gone
      }
      await child.status;
      await stderr.catch(() => "");
    },
  };
}
