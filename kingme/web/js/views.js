// The page's views beside the play screen (puzzle, review, archive, analysis board): each is a
// <main id="NAME-view" class="layout NAME-view"> after the play screen's, named by its title
// (#NAME-title), built once from its HTML when it is first shown.

export function addView(name, html) {
  const view = Object.assign(document.createElement("main"), { id: `${name}-view`, className: `layout ${name}-view` });
  view.setAttribute("aria-labelledby", `${name}-title`);
  view.innerHTML = html;
  document.querySelector("main.layout").after(view);
  return view;
}
