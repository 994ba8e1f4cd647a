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
import { createProvider } from "./protocol/provider.ts";

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

/**
 * Starts the provider in this process: validates the cwd as the root, picks
 * the cache base and serves stdio until EOF.
 */
export async function startProvider(options: { ftsModule?: string } = {}): Promise<void> {
  routeConsoleToStderr();
  let root: ProjectRoot | KnowledgeError;
  try {
    root = await openProjectRoot({ cwd: Deno.cwd(), pwd: readEnv("PWD"), home: readEnv("HOME") });
  } catch (error) {
    root = error instanceof KnowledgeError
      ? error
      : new KnowledgeError("root_refused", "the project root cannot be inspected");
  }
  let base: string | KnowledgeError;
  try {
    base = cacheBase({ xdgCacheHome: readEnv("XDG_CACHE_HOME"), home: readEnv("HOME") });
  } catch (error) {
    base = error as KnowledgeError;
  }
  // Lowering the budget is a test knob; production flags do not permit it.
  const budget = Number(readEnv("PROJECT_KNOWLEDGE_INDEX_BUDGET_MS"));
  await serveJsonRpcLines(
    createProvider({
      root,
      cacheBase: base,
      indexBudgetMs: Number.isFinite(budget) && budget > 0 ? budget : undefined,
      diagnose,
      ftsModule: options.ftsModule,
    }),
    { onDiagnostic: diagnose },
  );
}

if (import.meta.main) await startProvider();
