/**
 * The project-knowledge provider: a native webcodex-plugin-v1 executable on
 * stdio. The Runner launches it with the project root as cwd; see README.md
 * for the exact command line and permissions.
 *
 * @module
 */

import { routeConsoleToStderr, serveJsonRpcLines } from "../shared/jsonrpc_lines.ts";
import { cacheBase } from "./project/cache_dir.ts";
import { KnowledgeError } from "./errors.ts";
import { openProjectRoot, type ProjectRoot } from "./project/project_root.ts";
import { createProvider, type ProviderSetup } from "./protocol/provider.ts";

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not permitted: treated as unset
  }
}

function diagnose(message: string): void {
  console.error(`project-knowledge: ${message}`);
}

/** What the provider reads from its process: the cwd and environment values. */
export interface ProviderSources {
  /** The process cwd: the project root to validate. */
  cwd: string;
  /** PWD, when set and readable. */
  pwd?: string;
  /** HOME, when set and readable. */
  home?: string;
  /** XDG_CACHE_HOME, when set and readable. */
  xdgCacheHome?: string;
  /** PROJECT_KNOWLEDGE_INDEX_BUDGET_MS as given (a test knob). */
  indexBudgetMs?: string;
}

/**
 * The provider's setup from its process's cwd and environment: the verified
 * root and cache base, or the errors that refuse them at initialize.
 */
export async function providerSetup(
  sources: ProviderSources,
): Promise<Pick<ProviderSetup, "root" | "cacheBase" | "indexBudgetMs">> {
  let root: ProjectRoot | KnowledgeError;
  try {
    root = await openProjectRoot({ cwd: sources.cwd, pwd: sources.pwd, home: sources.home });
  } catch (error) {
    root = error instanceof KnowledgeError
      ? error
      : new KnowledgeError("root_refused", "the project root cannot be inspected");
  }
  let base: string | KnowledgeError;
  try {
    base = cacheBase({ xdgCacheHome: sources.xdgCacheHome, home: sources.home });
  } catch (error) {
    base = error as KnowledgeError;
  }
  // Lowering the budget is a test knob; production flags do not permit it.
  const budget = Number(sources.indexBudgetMs);
  return {
    root,
    cacheBase: base,
    indexBudgetMs: Number.isFinite(budget) && budget > 0 ? budget : undefined,
  };
}

/**
 * Starts the provider in this process: validates the cwd as the root, picks
 * the cache base and serves stdio until EOF.
 */
export async function startProvider(options: { ftsModule?: string } = {}): Promise<void> {
  routeConsoleToStderr();
  const setup = await providerSetup({
    cwd: Deno.cwd(),
    pwd: readEnv("PWD"),
    home: readEnv("HOME"),
    xdgCacheHome: readEnv("XDG_CACHE_HOME"),
    indexBudgetMs: readEnv("PROJECT_KNOWLEDGE_INDEX_BUDGET_MS"),
  });
  await serveJsonRpcLines(
    createProvider({ ...setup, diagnose, ftsModule: options.ftsModule }),
    { onDiagnostic: diagnose },
  );
}

if (import.meta.main) await startProvider();
