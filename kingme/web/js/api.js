// The server's JSON API. The browser keeps the game record; the server checks it and answers
// with the whole state. A refusal comes back as ApiError carrying the server's message.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function post(path, body, signal) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError("", 0);
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(data.error || response.statusText, response.status);
  return data;
}

export const api = {
  start: (setup) => post("/api/start", { setup }),
  state: (record) => post("/api/state", { record }),
  computer: (record, level, signal) => post("/api/computer", { record, level }, signal),
  hint: (record, signal) => post("/api/hint", { record }, signal),
  undo: (record, turns) => post("/api/undo", { record, turns }),
  exportPdn: (record, tags) => post("/api/pdn/export", { record, tags }),
  importText: (text, variant, seed) => post("/api/pdn/import", { text, variant, seed }),
};
