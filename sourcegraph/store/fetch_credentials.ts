/**
 * Credentials for fetching private upstream repositories, kept only in the
 * data folder: `<data>/credentials/<repository id>/` (0700), one 0600 file
 * per secret, written to a temporary name in that folder and renamed, so a
 * kill mid-write leaves at most a temporary file there and never a partial
 * secret in use. Nothing else holds them: not the control store, not an API
 * answer, a log line, a URL, a process argument or an environment variable.
 *
 * - https: Git asks the credential helper this module configures, scoped to
 *   the remote's scheme, host and port (`credential.<url>.helper`); the
 *   helper is a shell function that prints the stored file on `get`, so the
 *   token travels from the file to Git over a pipe only.
 * - ssh: `core.sshCommand` names the stored key and known_hosts files with
 *   `IdentitiesOnly=yes`, strict host-key checking against those hosts only,
 *   no agent, no configuration file and no prompt.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** A repository's fetch credential. */
export type FetchCredential =
  | { kind: "https"; username?: string; token: string }
  | { kind: "ssh"; privateKey: string; knownHosts: string };

/**
 * What each value of a credential may be (printable, bounded; a key that
 * looks like one); the wires that take credentials build their shapes from
 * these.
 */
export const CREDENTIAL_VALUES = {
  username: z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/).refine((name) =>
    !name.includes("=")
  ),
  token: z.string().min(1).max(4096).regex(/^[\x21-\x7e]+$/),
  privateKey: z.string().min(1).max(16_384).regex(/PRIVATE KEY/),
  knownHosts: z.string().min(1).max(65_536),
};

/** An https credential, checked value by value (its fields are one word each, on every wire). */
export const HTTPS_CREDENTIAL = z.strictObject({
  kind: z.literal("https"),
  username: CREDENTIAL_VALUES.username.optional(),
  token: CREDENTIAL_VALUES.token,
});

/** A whole credential, checked value by value. */
export const FETCH_CREDENTIAL: z.ZodType<FetchCredential> = z.discriminatedUnion("kind", [
  HTTPS_CREDENTIAL,
  z.strictObject({
    kind: z.literal("ssh"),
    privateKey: CREDENTIAL_VALUES.privateKey,
    knownHosts: CREDENTIAL_VALUES.knownHosts,
  }),
]);

const HTTPS_FILE = "https.credential";
const SSH_KEY_FILE = "ssh_key";
const KNOWN_HOSTS_FILE = "known_hosts";

/**
 * Where the repositories' fetch credentials are kept: the data folder's
 * files (the single process), or sealed in the shared PostgreSQL store and
 * written out to the fetching replica's files when a sync needs them.
 */
export interface CredentialStore {
  /** Stores (replacing any) `credential` for repository `id`. */
  set(id: number, credential: FetchCredential): Promise<void>;
  /** Removes repository `id`'s credential; resolves whether there was one. */
  remove(id: number): Promise<boolean>;
  /** Which credential repository `id` has, never its value. */
  kind(id: number): "https" | "ssh" | null;
  /**
   * The Git configuration (`-c` arguments, placed before the subcommand)
   * that gives a fetch of `source` repository `id`'s credential; none when
   * it has none, or one that does not fit the source's transport.
   */
  gitArgs(id: number, source: string): Promise<string[]>;
}

/** The credential files of the service's repositories. */
export class FetchCredentials implements CredentialStore {
  #root: string;

  /** Credentials below `<dataDir>/credentials`. */
  constructor(dataDir: string) {
    this.#root = join(dataDir, "credentials");
  }

  /** Stores (replacing any) `credential` for repository `id`. */
  set(id: number, credential: FetchCredential): Promise<void> {
    this.write(id, credential);
    return Promise.resolve();
  }

  /** `set`, at once. */
  write(id: number, credential: FetchCredential): void {
    const folder = this.#folder(id);
    fs.mkdirSync(this.#root, { recursive: true, mode: 0o700 });
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.chmodSync(folder, 0o700);
    this.#removeTemporary(folder);
    if (credential.kind === "https") {
      const username = credential.username ?? "x-access-token";
      writeSecret(folder, HTTPS_FILE, `username=${username}\npassword=${credential.token}\n`);
      for (const name of [SSH_KEY_FILE, KNOWN_HOSTS_FILE]) {
        fs.rmSync(join(folder, name), { force: true });
      }
    } else {
      const key = credential.privateKey.endsWith("\n")
        ? credential.privateKey
        : `${credential.privateKey}\n`;
      writeSecret(
        folder,
        KNOWN_HOSTS_FILE,
        credential.knownHosts.endsWith("\n") ? credential.knownHosts : `${credential.knownHosts}\n`,
      );
      writeSecret(folder, SSH_KEY_FILE, key);
      fs.rmSync(join(folder, HTTPS_FILE), { force: true });
    }
  }

  /** Removes repository `id`'s credential; returns whether there was one. */
  remove(id: number): Promise<boolean> {
    const had = this.kind(id) !== null;
    fs.rmSync(this.#folder(id), { recursive: true, force: true });
    return Promise.resolve(had);
  }

  /**
   * Repository `id`'s credential as stored, or null (for moving it to a
   * shared store; nothing else reads a value back).
   */
  read(id: number): FetchCredential | null {
    const folder = this.#folder(id);
    const kind = this.kind(id);
    if (kind === "https") {
      const text = fs.readFileSync(join(folder, HTTPS_FILE), "utf8");
      const fields = new Map(
        text.split("\n").filter((line) => line.includes("=")).map((line) => {
          const at = line.indexOf("=");
          return [line.slice(0, at), line.slice(at + 1)] as const;
        }),
      );
      const username = fields.get("username");
      return {
        kind: "https",
        ...(username && username !== "x-access-token" ? { username } : {}),
        token: fields.get("password") ?? "",
      };
    }
    if (kind === "ssh") {
      return {
        kind: "ssh",
        privateKey: fs.readFileSync(join(folder, SSH_KEY_FILE), "utf8"),
        knownHosts: fs.readFileSync(join(folder, KNOWN_HOSTS_FILE), "utf8"),
      };
    }
    return null;
  }

  /** Which credential repository `id` has, never its value. */
  kind(id: number): "https" | "ssh" | null {
    const folder = this.#folder(id);
    if (fs.existsSync(join(folder, HTTPS_FILE))) return "https";
    if (
      fs.existsSync(join(folder, SSH_KEY_FILE)) && fs.existsSync(join(folder, KNOWN_HOSTS_FILE))
    ) {
      return "ssh";
    }
    return null;
  }

  /**
   * The Git configuration (`-c` arguments, placed before the subcommand)
   * that gives a fetch of `source` repository `id`'s credential; none when
   * it has none, or one that does not fit the source's transport.
   */
  gitArgs(id: number, source: string): Promise<string[]> {
    return Promise.resolve(this.#gitArgs(id, source));
  }

  #gitArgs(id: number, source: string): string[] {
    const kind = this.kind(id);
    const folder = this.#folder(id);
    if (kind === "https") {
      const origin = httpOrigin(source);
      if (origin === null) return [];
      const file = shellQuote(join(folder, HTTPS_FILE));
      return ["-c", `credential.${origin}.helper=!f() { test "$1" = get && cat ${file}; }; f`];
    }
    if (kind === "ssh" && isSshSource(source)) {
      const command = [
        "ssh",
        "-F /dev/null",
        `-i ${shellQuote(join(folder, SSH_KEY_FILE))}`,
        "-o IdentitiesOnly=yes",
        "-o IdentityAgent=none",
        "-o StrictHostKeyChecking=yes",
        `-o UserKnownHostsFile=${shellQuote(join(folder, KNOWN_HOSTS_FILE))}`,
        "-o GlobalKnownHostsFile=/dev/null",
        "-o BatchMode=yes",
        "-o PasswordAuthentication=no",
        "-o KbdInteractiveAuthentication=no",
      ].join(" ");
      return ["-c", `core.sshCommand=${command}`];
    }
    return [];
  }

  #folder(id: number): string {
    return join(this.#root, String(id));
  }

  // Temporary files of a write that was killed: never used, removed on the next write.
  #removeTemporary(folder: string): void {
    for (const name of fs.readdirSync(folder)) {
      if (name.includes(".tmp-")) fs.rmSync(join(folder, name), { force: true });
    }
  }
}

function writeSecret(folder: string, name: string, text: string): void {
  const temporary = join(folder, `${name}.tmp-${crypto.randomUUID()}`);
  const fd = fs.openSync(temporary, "wx", 0o600);
  try {
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, join(folder, name));
}

/** `scheme://host[:port]` of an http(s) URL source, without userinfo; null for other sources. */
export function httpOrigin(source: string): string | null {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return `${url.protocol}//${url.host}`;
}

function isSshSource(source: string): boolean {
  return source.startsWith("ssh://") || /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/.test(source);
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
