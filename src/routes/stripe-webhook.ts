import { createRoute, z } from "@hono/zod-openapi";
import { newRouter } from "../http/router";
import { receiveStripeWebhook } from "../payments/webhook";
import { errorResponses, jsonOk } from "../schemas/common";

// Stripe's webhook endpoint (docs/billing.md). The body is read as text: the signature is over
// the exact bytes Stripe sent.

const stripeWebhookRoute = createRoute({
  method: "post",
  path: "/webhooks/stripe",
  tags: ["Payments"],
  summary: "Stripe webhook events (signed with the endpoint's signing secret)",
  description:
    "Applies checkout.session.completed, checkout.session.async_payment_succeeded, invoice.paid, charge.refunded and customer.subscription.updated/deleted once per event id. Other events answer 200 and change nothing.",
  request: { headers: z.object({ "stripe-signature": z.string().optional() }) },
  responses: {
    200: jsonOk(z.object({ received: z.literal(true), applied: z.boolean(), note: z.string() }).openapi("StripeWebhookAnswer"), "Received.", false),
    ...errorResponses("missing_parameter", "invalid_parameter", "not_found", "upstream_error"),
  },
});

export const stripeWebhookRoutes = newRouter().openapi(stripeWebhookRoute, async (c) => {
  const answer = await receiveStripeWebhook(c.env, await c.req.text(), c.req.header("Stripe-Signature"));
  return c.json(answer, 200);
});
