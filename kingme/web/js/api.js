// The server's JSON API. The browser keeps the game record; the server checks it and answers
// with the whole state. A refusal comes back as ApiError carrying the server's message.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// The page's one HTTP helper: JSON in, JSON out, as { status, data, statusText } (status 0 when the server
// could not be reached). A cancelled request still throws its AbortError.
export async function http(method, path, body, signal) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    return { status: 0, data: {} };
  }
  const data = await response.json().catch(() => ({}));
  return { status: response.status, data, statusText: response.statusText };
}

// The answer of a request that must succeed; a refusal throws ApiError with the server's message.
export async function request(method, path, body, signal) {
  const { status, data, statusText } = await http(method, path, body, signal);
  if (status < 200 || status > 299) throw new ApiError(status ? data.error || statusText : "", status);
  return data;
}

// A style sheet of a part of the page loaded on first use (the puzzle view, online play): the
// part is built once its rules apply, so it never shows unstyled.
export function stylesheet(href) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  const loaded = new Promise((resolve, reject) => {
    link.addEventListener("load", resolve);
    link.addEventListener("error", () => reject(new ApiError("", 0)));
  });
  document.head.appendChild(link);
  return loaded;
}

const post = (path, body, signal) => request("POST", path, body, signal);

export const api = {
  start: (setup) => post("/api/start", { setup }),
  state: (record) => post("/api/state", { record }),
  computer: (record, level, signal) => post("/api/computer", { record, level }, signal),
  hint: (record, signal) => post("/api/hint", { record }, signal),
  undo: (record, turns) => post("/api/undo", { record, turns }),
  exportPdn: (record, tags) => post("/api/pdn/export", { record, tags }),
  importText: (text, variant, seed) => post("/api/pdn/import", { text, variant, seed }),
};
