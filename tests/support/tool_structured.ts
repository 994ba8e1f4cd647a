/**
 * Checks that a tool's structured content says what its text says: the
 * text is read back here on its own terms (its JSON, or its `Label:` lines
 * and `N:` rows) and the facts it names (paths, line numbers, SHAs, cursors)
 * are compared with the structured content's. Links (`url`) are left to
 * `absoluteLinks`.
 *
 * @module
 */

import { z } from "zod";
import { TOOLS } from "../../sourcegraph/http/mcp/server.ts";
import { assert, assertEquals } from "./assert.ts";

type Json = Record<string, unknown>;

/** Asserts `structured` validates against the declared output shape of `tool`. */
export function assertValidAnswer(tool: string, structured: unknown): void {
  const declared = TOOLS.find((candidate) => candidate.name === tool);
  assert(declared !== undefined, `no tool ${tool}`);
  const parsed = z.object(declared.output).safeParse(structured);
  assert(parsed.success, `${tool}: ${parsed.error?.message}`);
}

/** Every `url` in `value`, at any depth. */
export function linksOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(linksOf);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === "url" && typeof item === "string" ? [item] : linksOf(item)
  );
}

/** `value` without its `url` keys, at any depth. */
export function withoutLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLinks);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => key !== "url").map(([key, item]) => [
      key,
      withoutLinks(item),
    ]),
  );
}

/** Asserts the structured answer of `tool` names what its text blocks name. */
export function assertAgrees(tool: string, texts: string[], structured: Json): void {
  const check = AGREEMENT[tool];
  assert(check !== undefined, `no agreement check for ${tool}`);
  check(texts, structured);
}

const AGREEMENT: Record<string, (texts: string[], structured: Json) => void> = {
  repositories: sameJson,
  availability: sameJson,
  resolve: sameJson,
  symbols: sameJson,
  list: sameJson,
  diff: sameJson,
  prepare: sameJson,
  search: (texts, structured) => {
    assertEquals(searchFiles(texts[0]), withoutLinks(structured.results));
    assertEquals(cursorOf(texts[0]), structured.next_cursor);
  },
  references: (texts, structured) => {
    const rows = [...texts[0].matchAll(/^File: (".*")$|^(\d+) \[([a-z,]+)\]: /gm)];
    let path = "";
    const references = rows.flatMap((row) => {
      if (row[1] !== undefined) path = JSON.parse(row[1]);
      return row[1] !== undefined ? [] : [{ path, line: Number(row[2]), roles: row[3].split(",") }];
    });
    assertEquals(withoutLinks(structured.references), references);
    assertEquals(label(texts[0], "Commit"), structured.commit);
    assertEquals(cursorOf(texts[0]), structured.next_cursor);
  },
  definition: (texts, structured) => {
    const found = /^Definition: "(.*):(\d+)"; Kind: "(\w+)"/m.exec(texts[0]);
    assertEquals(
      withoutLinks(structured.definition),
      found === null ? null : { path: found[1], line: Number(found[2]), kind: found[3] },
    );
    assertEquals(label(texts[0], "Commit"), structured.commit);
  },
  read: (texts, structured) =>
    assertEquals(withoutLinks(readFacts(texts[0])), readFacts(structured)),
  read_many: (texts, structured) => {
    const items = structured.items as Json[];
    assertEquals(items.length, texts.filter((text) => text.startsWith("Repository:")).length);
    items.forEach((item, i) => assertEquals(readFacts(texts[i]), readFacts(item)));
  },
  locate: (texts, structured) => {
    const commits = [...texts[0].matchAll(/^Commit: "(\w+)"$/gm)].map((match) => match[1]);
    assertEquals(commits.at(-1), structured.commit);
    assertEquals(label(texts[0], "Status"), structured.status);
    assertEquals(label(texts[0], "Path"), structured.path);
    assertEquals(linesOf(texts[0]), [structured.start_line, structured.end_line]);
  },
  blame: (texts, structured) => {
    const runs: { start_line: number; end_line: number; commit: string }[] = [];
    for (const row of texts[0].matchAll(/^(\d+): ([0-9a-f]{40}) |^(\d+): ([0-9a-f]{8}) \|/gm)) {
      if (row[2] !== undefined) {
        runs.push({ start_line: Number(row[1]), end_line: Number(row[1]), commit: row[2] });
      } else {
        const last = runs.at(-1)!;
        assertEquals(last.commit.slice(0, 8), row[4]);
        last.end_line = Number(row[3]);
      }
    }
    assertEquals(withoutLinks(structured.runs), runs);
    const next = /NextStartLine: (\d+|null)/.exec(texts[0]);
    assertEquals(next === null ? null : JSON.parse(next[1]), structured.next_start_line);
  },
  history: (texts, structured) => {
    assertEquals(commitRows(texts[0]), withoutLinks(structured.commits));
    assertEquals(cursorOf(texts[0]), structured.next_cursor);
  },
  commits: (texts, structured) => {
    const sections = texts[0].split(/^(?=Repository: )/m).slice(1);
    assertEquals(
      sections.map((section) => ({
        repo: label(section, "Repository"),
        commits: commitRows(section),
      })),
      withoutLinks(structured.results),
    );
    assertEquals(cursorOf(texts[0]), structured.next_cursor);
  },
};

// A JSON answer: its structured content is its JSON, links added.
function sameJson(texts: string[], structured: Json): void {
  assertEquals(texts.length, 1);
  assertEquals(withoutLinks(structured), JSON.parse(texts[0]));
}

// The JSON value of the first `Label: value` line (a line holding only it).
function label(text: string, name: string): unknown {
  const match = new RegExp(`^${name}: (".*"|\\w+)$`, "m").exec(text);
  return match === null ? undefined : JSON.parse(match[1]);
}

function linesOf(text: string): [number, number] | [undefined, undefined] {
  const match = /^Lines: (\d+)-(\d+)$/m.exec(text);
  return match === null ? [undefined, undefined] : [Number(match[1]), Number(match[2])];
}

function cursorOf(text: string): string | undefined {
  const match = /NextCursor: (".*?")/.exec(text);
  return match === null ? undefined : JSON.parse(match[1]);
}

// The facts of a read block, from its text or from its structured item.
function readFacts(from: string | Json): Json {
  if (typeof from !== "string") {
    return {
      commit: from.commit,
      path: from.path,
      lines: [from.start_line, from.end_line],
      next: from.next_start_line ?? null,
    };
  }
  const next = /NextStartLine: (\d+|null)/.exec(from);
  return {
    commit: label(from, "Commit"),
    path: label(from, "Path"),
    lines: linesOf(from),
    next: next === null ? null : JSON.parse(next[1]),
  };
}

// The commit rows of `history` and `commits`: SHA, author, date, subject.
function commitRows(text: string): Json[] {
  return [...text.matchAll(/^([0-9a-f]{40}) (".*?") (\S+) (".*")$/gm)].map((row) => ({
    commit: row[1],
    author: JSON.parse(row[2]),
    date: row[3],
    subject: JSON.parse(row[4]),
  }));
}

// The files and matching lines a search page shows, by repository.
function searchFiles(text: string): Json[] {
  const results: { repo: string; commit: string; files: { path: string; lines: number[] }[] }[] =
    [];
  const single = /^Repository: (".*")\n[^\n]*\nCommit: (".*")$/m.exec(text);
  if (single !== null) {
    results.push({ repo: JSON.parse(single[1]), commit: JSON.parse(single[2]), files: [] });
  }
  const rows = text.matchAll(/^Repository: (".*")$|^Commit: (".*")$|^File: (".*")$|^(\d+): /gm);
  for (const row of rows) {
    if (row[1] !== undefined && single === null) {
      results.push({ repo: JSON.parse(row[1]), commit: "", files: [] });
    } else if (row[2] !== undefined && single === null) results.at(-1)!.commit = JSON.parse(row[2]);
    else if (row[3] !== undefined) {
      results.at(-1)!.files.push({ path: JSON.parse(row[3]), lines: [] });
    } else if (row[4] !== undefined) results.at(-1)!.files.at(-1)!.lines.push(Number(row[4]));
  }
  return results;
}
