import { MessagePage } from "./pages/sign-in";
import { render, type DashboardContext } from "./respond";

/** Unknown dashboard paths get a page, not the API's JSON envelope. */
export function notFoundPage(c: DashboardContext) {
  if (c.req.path === "/dashboard/" && c.req.method === "GET") return c.redirect("/dashboard", 301);
  return render(c, <MessagePage title="Page not found" message={`There is no dashboard page at ${c.req.path}.`} />, 404);
}
