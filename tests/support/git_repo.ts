/**
 * Builds real Git repositories in temporary folders for tests. Fixture Git
 * runs isolated from the host's global and system configuration.
 *
 * @module
 */

import { join } from "node:path";

// No automatic maintenance: a commit, merge or fetch would start `git maintenance run --auto`
// after its work, a process (about 13 ms of processor) that finds nothing to do in a fixture.
const FIXTURE_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "maintenance.auto",
  GIT_CONFIG_VALUE_0: "false",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

/** Runs fixture Git in `cwd` and returns its trimmed stdout; throws on failure. */
export async function git(cwd: string, args: string[], stdin?: Uint8Array): Promise<string> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    env: FIXTURE_ENV,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  if (!out.success) {
    throw new Error(
      `fixture git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/** A temporary repository with a working tree. */
export interface TestRepo {
  /** Absolute path of the work tree root. */
  path: string;
  /** Writes files (creating folders) relative to the root. */
  write(files: Record<string, string | Uint8Array>): Promise<void>;
  /** Stages everything and commits; returns the new commit id. */
  commit(message?: string): Promise<string>;
  /** Runs fixture Git inside the repository. */
  git(...args: string[]): Promise<string>;
}

/** Creates a temporary folder that is removed by `Deno.test` cleanup callers. */
export async function tempDir(prefix = "ctxsrc-test-"): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix }));
}

/** Creates a repository on branch `main`, optionally with a first commit of `files`. */
export async function createRepo(
  files: Record<string, string | Uint8Array> = {},
  options: { parent?: string; name?: string } = {},
): Promise<TestRepo> {
  const parent = options.parent ?? await tempDir();
  const path = join(parent, options.name ?? "repo");
  await Deno.mkdir(path, { recursive: true });
  await initRepo(path);
  const repo: TestRepo = {
    path,
    async write(entries) {
      for (const [name, content] of Object.entries(entries)) {
        const target = join(path, name);
        await Deno.mkdir(join(target, ".."), { recursive: true });
        if (typeof content === "string") await Deno.writeTextFile(target, content);
        else await Deno.writeFile(target, content);
      }
    },
    async commit(message = "commit") {
      await git(path, ["add", "-A"]);
      await git(path, ["commit", "-q", "--allow-empty", "-m", message]);
      return await readHead(path) ?? await git(path, ["rev-parse", "HEAD"]);
    },
    git: (...args) => git(path, args),
  };
  if (Object.keys(files).length > 0) {
    await repo.write(files);
    await repo.commit("initial");
  }
  return repo;
}

// What `git init -b main` makes (the sample hooks and description aside),
// written directly: one Git process fewer per fixture repository. An
// existing repository is left to Git, which reinitializes it safely.
async function initRepo(path: string): Promise<void> {
  const gitDir = join(path, ".git");
  if (await Deno.lstat(gitDir).then(() => true, () => false)) {
    await git(path, ["init", "-q", "-b", "main"]);
    return;
  }
  for (const dir of ["objects/info", "objects/pack", "refs/heads", "refs/tags", "hooks", "info"]) {
    await Deno.mkdir(join(gitDir, dir), { recursive: true });
  }
  await Deno.writeTextFile(join(gitDir, "HEAD"), "ref: refs/heads/main\n");
  await Deno.writeTextFile(
    join(gitDir, "config"),
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
  );
}

// The commit HEAD names, read from the files a fresh commit leaves (a loose
// branch ref or a detached HEAD) instead of a third Git process per commit;
// null for any other layout (packed refs, a linked work tree), which Git reads.
async function readHead(path: string): Promise<string | null> {
  const gitDir = join(path, ".git");
  const head = await Deno.readTextFile(join(gitDir, "HEAD")).catch(() => "");
  const symbolic = /^ref: (refs\/heads\/[^\s]+)\n?$/.exec(head);
  const id = symbolic ? await Deno.readTextFile(join(gitDir, symbolic[1])).catch(() => "") : head;
  return /^[0-9a-f]{40}\n?$/.test(id) ? id.trim() : null;
}

/** Removes a temporary folder, ignoring one that is already gone. */
export async function removeDir(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch(() => {});
}

/** Adds a new one-file repository below `parent` to `repo` as the submodule `path` (staged). */
export async function addSubmodule(
  repo: TestRepo,
  options: { parent: string; path: string; files: Record<string, string> },
): Promise<void> {
  const sub = await createRepo(options.files, {
    parent: options.parent,
    name: `${options.path}-origin`,
  });
  await repo.git(
    "-c",
    "protocol.file.allow=always",
    "submodule",
    "add",
    "-q",
    sub.path,
    options.path,
  );
}
