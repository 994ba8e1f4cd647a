/**
 * Page requests against a handler in process: GETs and form POSTs with the
 * Host, cookies and bearer token a browser or client would send.
 *
 * @module
 */

import type { Handler } from "../../sourcegraph/http/edge_env.ts";

/** What a page answered. */
export interface PageAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** One request to `path` (below the host), answered in process. */
export async function pageRequest(
  handle: Handler,
  path: string,
  options: {
    method?: string;
    cookie?: string;
    token?: string;
    form?: Record<string, string>;
    headers?: Record<string, string>;
    origin?: string;
  } = {},
): Promise<PageAnswer> {
  const headers = new Headers({ host: "127.0.0.1", ...options.headers });
  if (options.cookie) headers.set("cookie", options.cookie);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  if (options.origin) headers.set("origin", options.origin);
  let body: string | undefined;
  if (options.form) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(options.form).toString();
  }
  const response = await handle(
    new Request(`http://127.0.0.1${path}`, {
      method: options.method ?? (options.form ? "POST" : "GET"),
      headers,
      body,
      redirect: "manual",
    }),
  );
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The `name=value` of a Set-Cookie header for `name`, with its attributes, or null. */
export function setCookie(answer: PageAnswer, name: string): string | null {
  for (const [key, value] of answer.headers) {
    if (key === "set-cookie" && value.startsWith(`${name}=`)) return value;
  }
  return null;
}

/** The cookie to send back for a Set-Cookie header value. */
export function cookiePair(setCookieValue: string): string {
  return setCookieValue.split(";")[0];
}

/** The value of a hidden form field named `name` in an HTML page. */
export function hiddenField(html: string, name: string): string | null {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  return match ? match[1] : null;
}

/**
 * Signs in through the sign-in form of the pages behind `handler` with
 * `secret`: the answer's status and the session cookie (`name=value`), if set.
 */
export async function signIn(
  handler: Handler,
  secret: string,
): Promise<{ status: number; cookie: string | null }> {
  const form = await pageRequest(handler, "/sourcegraph/-/sign-in");
  const signedIn = await pageRequest(handler, "/sourcegraph/-/sign-in", {
    form: { csrf: hiddenField(form.body, "csrf")!, secret },
    cookie: cookiePair(setCookie(form, "sg_sign_in")!),
  });
  const session = setCookie(signedIn, "sg_session");
  return { status: signedIn.status, cookie: session === null ? null : cookiePair(session) };
}

/** The pages of a running service at `baseUrl`, through its socket, as a handler for `pageRequest`. */
export function overHttp(baseUrl: string): Handler {
  return (request: Request) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.delete("host");
    return fetch(`${baseUrl}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body: request.body,
      redirect: "manual",
    });
  };
}
