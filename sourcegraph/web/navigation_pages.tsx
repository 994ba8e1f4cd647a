/**
 * Code navigation pages at a full SHA: the definition view when it does not
 * redirect (several places the name may mean, or none), and the references
 * view (where a name occurs, a page at a time, file by file, each row with
 * its roles and its line, linked to that line). Both say how they were
 * found, as the `definition` and `references` tools do: precise from the
 * commit's uploaded SCIP index, or search-based. Names, paths and lines are
 * repository data, escaped like every other text.
 *
 * @module
 */

import type { DefinitionAnswer } from "../service/repository_definitions.ts";
import type { ReferenceFile, ReferencesPage } from "../service/name_references.ts";
import type { ScipSource } from "../search/scip/scip_derived.ts";
import { clippedReferenceLine } from "../render/references_text.ts";
import { Breadcrumbs, type Html, Layout, ShortSha, Tabs, type Viewer } from "./layout.tsx";
import { blobUrl, type PagePosition, referencesUrl } from "../render/page_urls.ts";

// How the answer was found, as the tools' `Precision` line says it.
function Precision(props: { precise: ScipSource | null | undefined }): Html {
  const { precise } = props;
  return precise
    ? (
      <span class="precision">
        Precise (SCIP {precise.tool} {precise.version}, index of <ShortSha sha={precise.commit} />)
      </span>
    )
    : <span class="precision">Search-based</span>;
}

// The page's heading: the repository, its tabs, and the name's position.
function PositionHeader(props: { repo: string; at: PagePosition; name: string }): Html {
  const { repo, at } = props;
  return (
    <>
      <h1>{repo}</h1>
      <Tabs repo={repo} current="files" rev={at.rev} />
      <div class="file-header">
        <Breadcrumbs repo={repo} commit={at.rev} path={at.path} />
      </div>
      <p>
        <code class="name">{props.name}</code> at{" "}
        <a href={blobUrl(repo, { rev: at.rev, path: at.path, start: at.line })}>
          line {at.line}, column {at.column}
        </a>{" "}
        · <ShortSha sha={at.rev} />
      </p>
    </>
  );
}

/** The definition view of a name with several possible places, or none. */
export function DefinitionPage(
  props: { viewer: Viewer; answer: DefinitionAnswer; at: PagePosition },
): Html {
  const { answer, at } = props;
  const found = answer.definition;
  const places = [
    ...(found === null ? [] : [{ ...found, kind: found.kind as string }]),
    ...answer.alternatives,
  ];
  return (
    <Layout title={`${answer.name} · definition · ${answer.repo}`} viewer={props.viewer}>
      <PositionHeader repo={answer.repo} at={at} name={answer.name} />
      <p class="muted">
        Definition · <Precision precise={answer.precise} />
      </p>
      {places.length === 0
        ? (
          <p class="notice">
            {answer.index === "not_ready"
              ? "No definition found in the files, and the symbol index of this version is still being built: try again soon."
              : "No definition found at this version: a package's or the platform's name, or a member of a value whose type is not evident."}
          </p>
        )
        : (
          <>
            <p>
              {places.length} places define <code>{answer.name}</code>
              {found?.via === "index" ? "; the likeliest first" : ""}:
            </p>
            <ul class="places">
              {places.map((place) => (
                <li>
                  <a
                    href={blobUrl(answer.repo, {
                      rev: answer.commit,
                      path: place.path,
                      start: place.line,
                    })}
                  >
                    {place.path}:{place.line}
                  </a>{" "}
                  <span class="muted">
                    {place.kind}
                    {place.container === null ? "" : ` in ${place.container}`}
                  </span>
                </li>
              ))}
            </ul>
          </>
        )}
      <p>
        <a href={referencesUrl(answer.repo, at)}>References of {answer.name}</a>
      </p>
    </Layout>
  );
}

/** The references view: one page of the places a name occurs. */
export function ReferencesView(props: {
  viewer: Viewer;
  page: ReferencesPage;
  at: PagePosition;
  next: string | null;
}): Html {
  const { page, at } = props;
  const files = definingFirst(page.files.filter((file) => file.lines.length > 0));
  return (
    <Layout title={`${page.name} · references · ${page.repo}`} viewer={props.viewer}>
      <PositionHeader repo={page.repo} at={at} name={page.name} />
      <p class="muted">
        References · <Precision precise={page.precise} />
        {page.scope === null ? null : <>· only the paths you may see</>}
        {page.search.partial ? <>· the search ran out of time: more may exist</> : null}
      </p>
      {page.target === null ? null : (
        <p>
          Definition:{" "}
          <a
            href={blobUrl(page.repo, {
              rev: page.commit,
              path: page.target.path,
              start: page.target.line,
            })}
          >
            {page.target.path}:{page.target.line}
          </a>
        </p>
      )}
      {files.length === 0
        ? <p class="notice">No references on this page. Only this version was searched.</p>
        : files.map((file) => (
          <ReferenceRows key={file.path} repo={page.repo} commit={page.commit} file={file} />
        ))}
      {props.next === null ? null : (
        <p>
          <a href={referencesUrl(page.repo, { ...at, after: props.next })}>Next page</a>
        </p>
      )}
    </Layout>
  );
}

// Files with the name's definition first (the search ranks them so across
// pages; this keeps it so within one), the rest in the search's order.
function definingFirst(files: ReferenceFile[]): ReferenceFile[] {
  const defines = (file: ReferenceFile) =>
    file.lines.some((line) => line.roles.includes("definition"));
  return [...files.filter(defines), ...files.filter((file) => !defines(file))];
}

function ReferenceRows(props: { repo: string; commit: string; file: ReferenceFile }): Html {
  const { repo, commit, file } = props;
  return (
    <section class="reference-file">
      <h2>
        <a href={blobUrl(repo, { rev: commit, path: file.path })}>{file.path}</a>
      </h2>
      {file.parse === "parsed" ? null : (
        <p class="muted">
          Not parsed ({file.parse}): whole-word matches, comments and strings included
        </p>
      )}
      <table class="code references">
        <tbody>
          {file.lines.map((line) => (
            <tr>
              {/* Not `num`: the script takes those for line anchors of the page itself. */}
              <td class="at">
                <a href={blobUrl(repo, { rev: commit, path: file.path, start: line.number })}>
                  {line.number}
                </a>
              </td>
              <td class="roles">
                {/* A box of its own: a cell's width gives way to a long line beside it. */}
                <div>
                  {line.roles.map((role) => (
                    <span key={role} class={`role role-${role}`}>{role}</span>
                  ))}
                </div>
              </td>
              <td>{clippedReferenceLine(line.text)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
