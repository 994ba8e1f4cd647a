/**
 * The sign-in page: a personal key or the service token, exchanged for a
 * server-side session (the browser keeps only the session's random id).
 *
 * @module
 */

import { type Html, Layout, type Viewer } from "./layout.tsx";
import { siteUrl } from "../render/page_urls.ts";

/** The sign-in page (`failed` after a refused attempt). */
export function SignInPage(
  props: {
    viewer: Viewer;
    csrf: string;
    failed: boolean;
    /** Where to continue once signed in (an authorization request). */
    next?: string;
  },
): Html {
  return (
    <Layout title="Sign in" viewer={props.viewer}>
      <h1>Sign in</h1>
      {props.failed ? <p class="notice error">That is not a valid key or token.</p> : null}
      <form method="post" action={siteUrl("sign-in")}>
        <input type="hidden" name="csrf" value={props.csrf} />
        {props.next === undefined ? null : <input type="hidden" name="next" value={props.next} />}
        {props.next === undefined
          ? null
          : <p class="notice">Sign in to continue to an application's authorization request.</p>}
        <p>
          <label>
            Personal key or service token
            <br />
            <input type="password" name="secret" autocomplete="off" required size={48} />
          </label>
        </p>
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        The key is checked once and never stored in the browser: a session cookie stands for it and
        ends after 8 hours, at sign-out or when the key is revoked (a restart of the service keeps
        it).
      </p>
    </Layout>
  );
}

/** A page that says something went wrong (`requestId` for unexpected failures). */
export function ProblemPage(
  props: {
    viewer: Viewer;
    title: string;
    code: string;
    message: string;
    requestId?: string;
    /** What the visitor may have meant (a missing file's nearest paths), as links. */
    nearest?: { name: string; href: string }[];
  },
): Html {
  const nearest = props.nearest ?? [];
  return (
    <Layout title={props.title} viewer={props.viewer}>
      <h1>{props.title}</h1>
      <p class="notice error">
        <code>{props.code}</code> {props.message}
        {props.requestId ? <span class="muted">(request {props.requestId})</span> : null}
      </p>
      {nearest.length === 0 ? null : (
        <>
          <p>Nearest paths at this version:</p>
          <ul class="nearest">
            {nearest.map((near) => (
              <li>
                <a href={near.href}>{near.name}</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </Layout>
  );
}
