/**
 * A disposable project for project-knowledge tests: a real Git repository
 * plus a private cache base beside it (never inside it), and the launch
 * options the fake Runner needs.
 *
 * @module
 */

import { join } from "node:path";
import { createRepo, removeDir, tempDir, type TestRepo } from "./git_repo.ts";
import { FakeRunner, type ProviderLaunch } from "./fake_runner.ts";

/** A project under test. */
export interface KnowledgeProject {
  /** The temp folder holding everything. */
  parent: string;
  /** The repository (the provider's cwd). */
  repo: TestRepo;
  /** XDG_CACHE_HOME for the provider. */
  cacheBase: string;
  /** The cache folder of this root, once created by the provider. */
  cacheFolder: string;
  /** Launch options for the fake Runner. */
  launch(extra?: Partial<ProviderLaunch>): ProviderLaunch;
  /** Admits a provider for this project. */
  admit(extra?: Partial<ProviderLaunch>): Promise<FakeRunner>;
}

/** Runs `fn` with a committed repository of `files`, cleaning up afterwards. */
export async function withProject(
  files: Record<string, string | Uint8Array>,
  fn: (project: KnowledgeProject) => Promise<void>,
): Promise<void> {
  const parent = await tempDir("pk-test-");
  try {
    const repo = await createRepo(files, { parent, name: "project" });
    const cacheBase = join(parent, "cache");
    await Deno.mkdir(cacheBase, { mode: 0o700 });
    const project: KnowledgeProject = {
      parent,
      repo,
      cacheBase,
      get cacheFolder() {
        const base = join(cacheBase, "webcodex-project-knowledge");
        const [entry] = [...Deno.readDirSync(base)].filter((e) => e.isDirectory);
        return join(base, entry.name);
      },
      launch: (extra = {}) => ({ cwd: repo.path, cacheBase, home: join(parent, "home"), ...extra }),
      admit: (extra = {}) => FakeRunner.admit(project.launch(extra)),
    };
    await fn(project);
  } finally {
    await removeDir(parent);
  }
}

/**
 * Runs `fn` with an admitted provider for a committed repository of `files`;
 * `inProcess` serves it in this process (see {@linkcode ProviderLaunch.inProcess}).
 */
export function withProvider(
  files: Record<string, string | Uint8Array>,
  fn: (runner: FakeRunner, project: KnowledgeProject) => Promise<void>,
  options: { inProcess?: boolean } = {},
): Promise<void> {
  return withProject(files, async (project) => {
    const runner = await project.admit({ inProcess: options.inProcess });
    try {
      await fn(runner, project);
    } finally {
      await runner.kill();
    }
  });
}
