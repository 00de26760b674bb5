// The Elysia application: every route group is a plugin used here.
import { Elysia } from "elysia";
import type { Services } from "../services.ts";

export function createApp(services: Services) {
  return new Elysia({ normalize: false }).get("/healthz", () => {
    if (!services.ready()) return new Response(JSON.stringify({ status: "starting" }), { status: 503, headers: { "content-type": "application/json" } });
    return { status: "ok" };
  });
}

export type App = ReturnType<typeof createApp>;
