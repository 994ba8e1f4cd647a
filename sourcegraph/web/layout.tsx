/**
 * The frame every page shares: the site header (home, connect, sign-in or
 * sign-out), the repository tabs and a path as links. Rendered with Hono's
 * JSX, which escapes every text and attribute value.
 *
 * @module
 */

import type { Child } from "hono/jsx";
import type { HtmlEscapedString } from "hono/utils/html";
import { homeUrl, repositoryUrl, siteUrl, tabUrl, treeUrl } from "../render/page_urls.ts";

/** What a component renders to. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Who is looking at a page. */
export interface Viewer {
  /** What the caller is, for the header ("service token", "personal key", null when anonymous). */
  label: string | null;
  /** The CSRF token of the signed-in session (forms that change state carry it). */
  csrf: string | null;
}

/** The page frame. */
export function Layout(props: { title: string; viewer: Viewer; children?: Child }): Html {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Context Source Graph</title>
        <link rel="stylesheet" href={siteUrl("static/app.css")} />
        <link rel="icon" href={siteUrl("static/icon.svg")} type="image/svg+xml" />
        <script src={siteUrl("static/app.js")} defer></script>
      </head>
      <body>
        <header class="site">
          <a class="brand" href={homeUrl()}>Context Source Graph</a>
          <nav>
            <a href={siteUrl("connect")}>Connect</a>
            {props.viewer.label === null
              ? <a href={siteUrl("sign-in")}>Sign in</a>
              : (
                <form method="post" action={siteUrl("sign-out")}>
                  <span class="muted">{props.viewer.label}</span>{" "}
                  <input type="hidden" name="csrf" value={props.viewer.csrf ?? ""} />
                  <button type="submit">Sign out</button>
                </form>
              )}
          </nav>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** The repository tabs. */
export type RepositoryTab = "files" | "versions" | "search" | "symbols" | "plugins";

/** The tab bar of a repository page (`rev` carried to the tabs that take one). */
export function Tabs(props: { repo: string; current: RepositoryTab; rev?: string }): Html {
  const tabs: [RepositoryTab, string, string][] = [
    // At a version, Files stays at that version: every link of a pinned page names its SHA.
    [
      "files",
      "Files",
      props.rev ? treeUrl(props.repo, { rev: props.rev }) : repositoryUrl(props.repo),
    ],
    ["versions", "Versions", tabUrl(props.repo, "versions", { rev: props.rev })],
    ["search", "Search", tabUrl(props.repo, "search", { rev: props.rev })],
    ["symbols", "Symbols", tabUrl(props.repo, "symbols", { rev: props.rev })],
    ["plugins", "Plugins", tabUrl(props.repo, "plugins", { rev: props.rev })],
  ];
  return (
    <nav class="tabs">
      {tabs.map(([tab, label, href]) => (
        <a href={href} aria-current={tab === props.current ? "page" : undefined}>{label}</a>
      ))}
    </nav>
  );
}

/** A commit shown short, with the full SHA on hover. */
export function ShortSha(props: { sha: string }): Html {
  return <code title={props.sha}>{props.sha.slice(0, 12)}</code>;
}

/** A commit time (seconds since the epoch, as Git keeps it) in UTC. */
export function formatCommitTime(seconds: number | null): string {
  return seconds === null ? "unknown date" : formatTime(seconds * 1000);
}

/** A date and time in UTC (ISO 8601, to the minute). */
export function formatTime(ms: number | null): string {
  if (ms === null) return "never";
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** The path of `dir` as links, from the repository's top. */
export function Breadcrumbs(props: { repo: string; commit: string; path: string }): Html {
  const parts = props.path === "" ? [] : props.path.split("/");
  return (
    <p class="file-path">
      <a href={treeUrl(props.repo, { rev: props.commit })}>{props.repo}</a>
      {parts.map((part, i) => (
        <>
          {" / "}
          {i === parts.length - 1 ? <span>{part}</span> : (
            <a
              href={treeUrl(props.repo, {
                rev: props.commit,
                dir: parts.slice(0, i + 1).join("/"),
              })}
            >
              {part}
            </a>
          )}
        </>
      ))}
    </p>
  );
}
