import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { MAX_BODY_BYTES } from "../http/json-body";
import { MessagePage } from "./pages/sign-in";
import { MAX_UPLOAD_BYTES } from "./playground-call";
import { render } from "./respond";

// A dashboard form over the request size limit (a 40 MB photo in the playground) is answered
// with a page saying so, not with the API's JSON: before anything is read, run or charged. The
// page's script stops such a file before it is sent; this is for browsers without it.

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString("en", { maximumFractionDigits: 1 })} MB`;

export const limitFormBody: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => {
    const sent = Number(c.req.header("Content-Length"));
    const size = Number.isFinite(sent) && sent > 0 ? ` (this one was ${megabytes(sent)})` : "";
    const message = `The form was too large to send${size}. Files can be at most ${megabytes(MAX_UPLOAD_BYTES)}. Nothing was run and nothing was charged: go back and choose a smaller file.`;
    return render(c, <MessagePage title="The file is too large" message={message} link={["/dashboard/playground", "Back to the playground"]} />, 413);
  },
});
