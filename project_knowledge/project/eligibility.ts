/**
 * Which tracked entries may be indexed, searched and read. Path rules decide
 * from the Git index alone (excluded entries); content rules decide from the
 * current bytes (skipped files). Both are conservative heuristics: they can
 * omit benign text and cannot identify every secret.
 *
 * @module
 */

import { decodeUtf8Strict, isBinary } from "../../shared/text.ts";
import { MAX_PATH_CHARS } from "../limits.ts";

/** Why a tracked entry is excluded by path or index state. */
export type ExclusionReason =
  | "unsupported"
  | "sensitive"
  | "symlink"
  | "submodule"
  | "invalid_path"
  | "conflicted";

/** Why a path-eligible file's current bytes are skipped. */
export type SkipReason =
  | "unreadable"
  | "hardlinked"
  | "binary"
  | "sensitive_content"
  | "oversized";

/** File extensions (lower-case, without the dot) that are indexed. */
export const INDEXED_EXTENSIONS: ReadonlySet<string> = new Set([
  // Markdown and text
  "md",
  "markdown",
  "mdx",
  "txt",
  "text",
  "rst",
  "adoc",
  "org",
  // code
  "ts",
  "tsx",
  "mts",
  "cts",
  "js",
  "jsx",
  "mjs",
  "cjs",
  "py",
  "pyi",
  "rs",
  "go",
  "java",
  "kt",
  "kts",
  "scala",
  "groovy",
  "c",
  "h",
  "cc",
  "cpp",
  "cxx",
  "hpp",
  "hh",
  "hxx",
  "cs",
  "fs",
  "swift",
  "m",
  "mm",
  "rb",
  "php",
  "pl",
  "pm",
  "lua",
  "r",
  "jl",
  "dart",
  "ex",
  "exs",
  "erl",
  "hrl",
  "hs",
  "ml",
  "mli",
  "clj",
  "cljs",
  "elm",
  "zig",
  "nim",
  "v",
  "sv",
  "vhd",
  "sql",
  "graphql",
  "gql",
  "proto",
  "thrift",
  "sh",
  "bash",
  "zsh",
  "fish",
  "ps1",
  "bat",
  "vue",
  "svelte",
  "astro",
  "html",
  "htm",
  "css",
  "scss",
  "sass",
  "less",
  "xml",
  "svg",
  "tex",
  "cmake",
  "gradle",
  "tf",
  "hcl",
  "nix",
  // configuration
  "json",
  "jsonc",
  "json5",
  "yaml",
  "yml",
  "toml",
  "ini",
  "cfg",
  "conf",
  "properties",
  "csv",
  "tsv",
]);

/** File names without an allowlisted extension that are indexed as they are. */
export const INDEXED_FILE_NAMES: ReadonlySet<string> = new Set([
  "makefile",
  "gnumakefile",
  "dockerfile",
  "containerfile",
  "justfile",
  "rakefile",
  "gemfile",
  "procfile",
  "vagrantfile",
  "jenkinsfile",
  "readme",
  "license",
  "licence",
  "copying",
  "authors",
  "contributors",
  "changelog",
  "notice",
  "go.mod",
  "cmakelists.txt",
]);

// Path components that name secrets (compared lower-case). Mirrors the
// WebCodex server's sensitive-path policy, widened with common key stores.
const SENSITIVE_NAMES = new Set([
  "secrets",
  "secret",
  "tokens",
  "credentials",
  "projects.d",
  "private",
]);
const SENSITIVE_PREFIXES = [
  ".env",
  "agent.toml",
  "webcodex.env",
  "credentials",
  "secret",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
];
const SENSITIVE_SUFFIXES = [
  ".pem",
  ".key",
  ".env",
  ".toml.bak",
  ".p12",
  ".pfx",
  ".jks",
  ".keystore",
  ".kdbx",
  ".gpg",
  ".asc",
  ".crt",
  ".der",
  ".ppk",
];

// C0 and C1 controls, DEL, and backslash (never part of a portable path).
const UNSAFE_PATH_CHARACTER = /[\p{Cc}\\]/u;

/**
 * Decides from a repository-relative path alone whether it may be indexed.
 * Returns null when eligible, otherwise the reason.
 */
export function pathExclusion(path: string): ExclusionReason | null {
  if (
    path.length === 0 || path.length > MAX_PATH_CHARS || UNSAFE_PATH_CHARACTER.test(path) ||
    path.startsWith("/")
  ) {
    return "invalid_path";
  }
  const parts = path.split("/");
  for (const part of parts) {
    if (part === "" || part === "." || part === "..") return "invalid_path";
  }
  for (const part of parts) {
    if (part.startsWith(".")) return "sensitive"; // hidden, e.g. .env and .git
    if (isSensitiveName(part.toLowerCase())) return "sensitive";
  }
  return isIndexedFormat(parts[parts.length - 1].toLowerCase()) ? null : "unsupported";
}

function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAMES.has(name) || SENSITIVE_PREFIXES.some((p) => name.startsWith(p)) ||
    SENSITIVE_SUFFIXES.some((s) => name.endsWith(s));
}

function isIndexedFormat(fileName: string): boolean {
  if (INDEXED_FILE_NAMES.has(fileName)) return true;
  const dot = fileName.lastIndexOf(".");
  return dot > 0 && INDEXED_EXTENSIONS.has(fileName.slice(dot + 1));
}

/** One recognizable secret: literal hints (any must occur) and its pattern. */
export interface SecretPattern {
  /** What it finds (for the README). */
  label: string;
  /** Case-sensitive literals of which at least one occurs in every match; empty: always test. */
  hints: readonly string[];
  /** The pattern itself. */
  pattern: RegExp;
}

/**
 * Recognizable secrets. A file containing any of them is skipped whole.
 * Documented in the README; keep the two in step.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    label: "PEM, OpenSSH and PGP private keys",
    hints: ["PRIVATE KEY"],
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/,
  },
  {
    label: "AWS access key ids",
    hints: ["AKIA", "ASIA"],
    pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  },
  {
    label: "GitHub tokens",
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}/,
  },
  {
    label: "GitHub fine-grained tokens",
    hints: ["github_pat_"],
    pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/,
  },
  { label: "GitLab tokens", hints: ["glpat-"], pattern: /\bglpat-[A-Za-z0-9_\-]{20,}/ },
  { label: "Slack tokens", hints: ["xox"], pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/ },
  { label: "Google API keys", hints: ["AIza"], pattern: /\bAIza[0-9A-Za-z_\-]{35}/ },
  { label: "Stripe live keys", hints: ["k_live_"], pattern: /\b[sr]k_live_[0-9A-Za-z]{16,}/ },
  {
    label: "OpenAI and Anthropic keys",
    hints: ["sk-"],
    pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}/,
  },
  { label: "npm tokens", hints: ["npm_"], pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  {
    label: "JSON Web Tokens",
    hints: ["eyJ"],
    pattern: /\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}/,
  },
  {
    label: "credentials in URLs (scheme://user:password@host)",
    hints: ["://"],
    pattern: /:\/\/[^\s\/:@'"]+:[^\s\/@'"]+@/,
  },
  {
    label: "a quoted literal of 8+ characters assigned to a password, secret, key or token name",
    hints: [],
    pattern:
      /(?:password|passwd|passphrase|secret|api[_\-]?key|access[_\-]?key|auth[_\-]?token|access[_\-]?token|client[_\-]?secret|private[_\-]?key)["']?\s*[:=]\s*["'][^"'\s]{8,}["']/i,
  },
];

/** Reports whether text contains a recognizable key, token or password. */
export function containsSecret(text: string): boolean {
  for (const { hints, pattern } of SECRET_PATTERNS) {
    if (hints.length > 0 && !hints.some((hint) => text.includes(hint))) continue;
    if (pattern.test(text)) return true;
  }
  return false;
}

/** What {@linkcode inspectContent} decided. */
export type ContentVerdict = { ok: true; text: string } | { ok: false; reason: SkipReason };

/** Applies the content rules to a file's current bytes. */
export function inspectContent(bytes: Uint8Array): ContentVerdict {
  if (isBinary(bytes)) return { ok: false, reason: "binary" };
  const text = decodeUtf8Strict(bytes);
  if (text === null) return { ok: false, reason: "binary" };
  if (containsSecret(text)) return { ok: false, reason: "sensitive_content" };
  return { ok: true, text };
}
