/**
 * The project-knowledge provider: a native webcodex-plugin-v1 executable on
 * stdio. The Runner launches it with the project root as cwd; see README.md
 * for the exact command line and permissions.
 *
 * @module
 */

import { routeConsoleToStderr, serveJsonRpcLines } from "../shared/jsonrpc_lines.ts";
import { cacheBase } from "./cache_dir.ts";
import { KnowledgeError } from "./errors.ts";
import { openProjectRoot, type ProjectRoot } from "./project_root.ts";
import { createProvider } from "./provider.ts";

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

if (import.meta.main) {
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
  const budget = Number(readEnv("PROJECT_KNOWLEDGE_INDEX_BUDGET_MS"));
  await serveJsonRpcLines(
    createProvider({
      root,
      cacheBase: base,
      indexBudgetMs: Number.isFinite(budget) && budget > 0 ? budget : undefined,
      diagnose,
    }),
    { onDiagnostic: diagnose },
  );
}
