// Drives a running service through a client generated from its own
// /v1/openapi.json (openapi-typescript + openapi-fetch): it compiles only if
// the document declares every field read here, and it fails if a real
// answer does not have the declared shape. ./run-smoke runs it in CI.
import createClient from "openapi-fetch";
import type { paths } from "./generated/schema.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const headers = { token: `Bearer ${env("ISSUING_TEST_KEY")}` };
const api = createClient<paths>({ baseUrl: env("ISSUING_API_URL"), headers });
const relay = createClient<paths>({ baseUrl: env("ISSUING_RELAY_URL"), headers });

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`unexpected answer: ${what}`);
}

function ok<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) {
    throw new Error(`${step}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  console.log(`${step}: ${answer.response.status}`);
  return answer.data;
}

const run = Date.now().toString();

const wallet = ok(
  "fund the issuing wallet",
  await api.PATCH("/v1/issuing/sandbox/cards/fund_issuing_wallet", {
    params: { query: { currency: "USD" } },
    body: { amount: 100_000 },
  }),
);
check(/^[0-9]+$/.test(wallet.data.issuing_balance), "issuing_balance is minor units");

const holder = ok(
  "register a cardholder",
  await api.POST("/v1/issuing/sandbox/cardholder/register_cardholder_synchronously", {
    body: {
      first_name: "Adaeze",
      last_name: "Okafor",
      address: {
        address: "Admiralty Way",
        city: "Lekki",
        state: "Lagos",
        country: "Nigeria",
        postal_code: "106104",
        house_no: "12B",
        lga: "Eti Osa",
      },
      phone: `+234803${run.slice(-7)}`,
      email_address: "adaeze@example.com",
      identity: {
        id_type: "NIGERIAN_BVN_VERIFICATION",
        bvn: `22${run.slice(-9)}`,
        selfie_image: "https://img.test/selfie.jpg",
      },
      meta_data: { user_id: 7 },
    },
  }),
);
const cardholderId = holder.data.cardholder_id;

const created = ok(
  "create a card",
  await api.POST("/v1/issuing/sandbox/cards/create_card", {
    body: {
      cardholder_id: cardholderId,
      card_type: "virtual",
      card_brand: "Mastercard",
      card_currency: "USD",
      card_limit: "500000",
      funding_amount: "1000",
      meta_data: { order: run },
    },
  }),
);
const cardId = created.data.card_id;

const funding = ok(
  "fund the card",
  await api.PATCH("/v1/issuing/sandbox/cards/fund_card_asynchronously", {
    body: { card_id: cardId, amount: 2_500, transaction_reference: `fund-${run}`, currency: "USD" },
  }),
);
check(funding.data.transaction_reference === `fund-${run}`, "the funding's reference");

const debit = ok(
  "debit the card",
  await api.PATCH("/v1/issuing/sandbox/cards/mock_debit_transaction", {
    body: { card_id: cardId, amount: "700", currency: "USD", transaction_reference: `debit-${run}` },
  }),
);
check(typeof debit.data.card_id === "string", "the debit's card");

const history = ok(
  "list the card's transactions",
  await api.GET("/v1/issuing/sandbox/cards/get_card_transactions", {
    params: { query: { card_id: cardId } },
  }),
);
const first = history.data.transactions[0];
check(first !== undefined && first.amount === "700", "the debit is listed");
check(typeof first.transaction_timestamp === "number", "transaction_timestamp is a number");
check(history.data.meta.total === 1 && history.data.meta.next === null, "paging");

const clear = ok(
  "read the card in clear on the relay",
  await relay.GET("/v1/issuing/sandbox/cards/get_card_details", {
    params: { query: { card_id: cardId } },
  }),
);
check(/^[0-9]{16}$/.test(clear.data.card_number), "the relay shows the number in clear");
check(clear.data.last_4 === clear.data.card_number.slice(-4), "last_4");
check(typeof clear.data.balance === "string", "balance");

const events = ok(
  "list events",
  await api.GET("/v1/issuing/sandbox/events", { params: { query: {} } }),
);
const creation = events.data.events.find((e) => e.event === "card_creation_event.successful");
check(creation !== undefined, "the card's creation event is listed");
const one = ok(
  "read an event",
  await api.GET("/v1/issuing/sandbox/events/{event_id}", {
    params: { path: { event_id: creation.event_id } },
  }),
);
check(one.data.event_id === creation.event_id && one.data.data["card_id"] === cardId, "the event");

// The authorization lifecycle (extensions): a hold, its capture in part
// (the rest released), and a refund of the capture.
const spender = ok(
  "create a card to hold on",
  await api.POST("/v1/issuing/sandbox/cards/create_card", {
    body: {
      cardholder_id: cardholderId,
      card_type: "virtual",
      card_brand: "Mastercard",
      card_currency: "USD",
      card_limit: "500000",
      funding_amount: "3000",
    },
  }),
).data.card_id;
const hold = ok(
  "place a hold",
  await api.POST("/v1/issuing/sandbox/authorizations", {
    body: { card_id: spender, amount: "1500", merchant: "SHELL LEKKI", merchant_category_code: "5541" },
  }),
);
check(hold.data.type === "authorization" && hold.data.status === "pending", "a pending hold");
const authorizationId = hold.data.issuer_transaction_reference;
const captured = ok(
  "capture part of it",
  await api.POST("/v1/issuing/sandbox/authorizations/{authorization_id}/capture", {
    params: { path: { authorization_id: authorizationId } },
    body: { amount: "1000" },
  }),
);
check(captured.data.authorization.status === "closed", "captured closes the authorization");
check(captured.data.captured_amount === "1000" && captured.data.released_amount === "500", "the capture's amounts");
const capture = captured.data.capture;
check(capture !== null && capture !== undefined && capture.type === "capture", "the capture's transaction");
const refunded = ok(
  "refund part of the capture",
  await api.POST("/v1/issuing/sandbox/refunds", {
    body: { transaction_id: capture.issuer_transaction_reference, amount: "400" },
  }),
);
check(refunded.data.refunded_amount === "400" && refunded.data.credited_to === "card", "the refund");
const listed = ok(
  "list the card's whole history",
  await api.GET("/v1/issuing/sandbox/transactions", {
    params: { query: { card_id: spender, type: "authorization" } },
  }),
);
check(listed.data.transactions.some((t) => t.issuer_transaction_reference === authorizationId && t.status === "closed"), "the closed hold is listed");

console.log("the generated client agrees with the service");
