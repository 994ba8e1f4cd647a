/**
 * The Symbols tab: where names are defined at one version (exact name,
 * prefix or RE2 over names), each definition linked to its lines on the
 * SHA-pinned file page; pages continue with the lookup's cursor.
 *
 * @module
 */

import type { SymbolsPage as SymbolsAnswer } from "../service/repository_symbols.ts";
import { SYMBOL_KINDS } from "../symbols/defined_symbol.ts";
import type { SymbolDefinition } from "../search/index/commit_symbols.ts";
import { encodeSymbolCursor, partialSymbolsNote } from "../render/symbols_json.ts";
import { type Html, Layout, ShortSha, Tabs, type Viewer } from "./layout.tsx";
import { blobUrl, tabUrl } from "../render/page_urls.ts";
import {
  type PageProblem,
  Problem,
  type VersionChoice,
  VersionSelect,
} from "./repository_pages.tsx";

/** What the symbols form holds. */
export interface SymbolsForm {
  q: string;
  match: "exact" | "prefix" | "regex";
  kind: string;
  rev: string;
}

/** The Symbols tab. */
export function SymbolsPage(props: {
  viewer: Viewer;
  repo: string;
  form: SymbolsForm;
  versions: VersionChoice[];
  found: SymbolsAnswer | null;
  problem: PageProblem | null;
}): Html {
  const { form, found } = props;
  return (
    <Layout
      title={form.q ? `${form.q} · symbols · ${props.repo}` : `Symbols · ${props.repo}`}
      viewer={props.viewer}
    >
      <h1>{props.repo}</h1>
      <Tabs repo={props.repo} current="symbols" rev={form.rev || undefined} />
      <SymbolFields repo={props.repo} form={form} versions={props.versions} />
      {props.problem ? <Problem problem={props.problem} /> : null}
      {found === null ? null : <SymbolResults repo={props.repo} form={form} found={found} />}
      {form.q === "" && props.problem === null ? <NoQuery repo={props.repo} /> : null}
    </Layout>
  );
}

// Before a name is typed: what the tab finds and how to ask, with examples to follow.
function NoQuery(props: { repo: string }): Html {
  const example = (q: string, match: SymbolsForm["match"]) =>
    tabUrl(props.repo, "symbols", { q, match });
  return (
    <div class="notice empty-state">
      <p>
        Find where a function, class, type, constant or other name is defined in this repository.
        Type a name and choose how it matches:
      </p>
      <ul>
        <li>
          <strong>exact</strong>: the whole name, e.g. <code>parseConfig</code>;
        </li>
        <li>
          <strong>prefix</strong>: names that start with it, e.g.{" "}
          <a href={example("parse", "prefix")}>
            <code>parse</code>
          </a>;
        </li>
        <li>
          <strong>regex</strong>: an RE2 pattern over names, e.g.{" "}
          <a href={example("^[A-Z]", "regex")}>
            <code>^[A-Z]</code>
          </a>{" "}
          (names that start with a capital letter).
        </li>
      </ul>
      <p class="muted">
        Each definition links to its lines; the kind and version lists narrow the lookup.
      </p>
    </div>
  );
}

function SymbolFields(
  props: { repo: string; form: SymbolsForm; versions: VersionChoice[] },
): Html {
  const { form } = props;
  return (
    <form class="inline" method="get" action={tabUrl(props.repo, "symbols")}>
      <input
        type="search"
        name="q"
        value={form.q}
        placeholder="Name, e.g. parseConfig"
        required
        aria-label="Name"
      />
      <select name="match" aria-label="Match">
        {(["exact", "prefix", "regex"] as const).map((match) => (
          <option value={match} selected={form.match === match}>{match}</option>
        ))}
      </select>
      <select name="kind" aria-label="Kind">
        <option value="" selected={form.kind === ""}>any kind</option>
        {SYMBOL_KINDS.map((kind) => (
          <option value={kind} selected={form.kind === kind}>{kind}</option>
        ))}
      </select>
      <VersionSelect versions={props.versions} selected={form.rev} />
      <button type="submit">Find</button>
    </form>
  );
}

function SymbolResults(props: { repo: string; form: SymbolsForm; found: SymbolsAnswer }): Html {
  const { found, form } = props;
  const next = found.nextOffset === null ? null : tabUrl(props.repo, "symbols", {
    q: form.q,
    match: form.match,
    kind: form.kind,
    rev: found.commit,
    after: encodeSymbolCursor({ commit: found.commit, offset: found.nextOffset }),
  });
  return (
    <>
      <p class="muted">
        {found.total} definition(s) at <ShortSha sha={found.commit} />
        {found.truncated ? " (capped: more may match)" : ""}
      </p>
      {found.partial === null ? null : <p class="muted">{partialSymbolsNote(found.partial)}</p>}
      {found.symbols.length === 0 ? null : (
        <table class="listing symbols">
          <thead>
            <tr>
              <th>Definition</th>
              <th>Where</th>
            </tr>
          </thead>
          <tbody>
            {found.symbols.map((symbol) => (
              <SymbolRow repo={props.repo} commit={found.commit} symbol={symbol} />
            ))}
          </tbody>
        </table>
      )}
      {next === null ? null : (
        <p>
          <a href={next}>More definitions</a>
        </p>
      )}
    </>
  );
}

function SymbolRow(props: { repo: string; commit: string; symbol: SymbolDefinition }): Html {
  const { symbol } = props;
  return (
    <tr>
      <td>
        <code>{symbol.name}</code>
        {symbol.container === null ? null : <span class="muted">{` in ${symbol.container}`}</span>}
        <br />
        <span class="muted">{symbol.kind} · {symbol.language}</span>
      </td>
      <td>
        <a
          class="file-path"
          href={blobUrl(props.repo, {
            rev: props.commit,
            path: symbol.path,
            start: symbol.startLine,
            end: symbol.endLine,
          })}
        >
          {symbol.path}:{symbol.startLine}
        </a>
      </td>
    </tr>
  );
}
