-- Hand-written: wake-up hints for several nodes on one database (src/adapters/storage/postgres/notice.ts). A
-- statement that inserts mailbox rows queues `NOTIFY caravan_mailbox`, one that inserts events `NOTIFY
-- caravan_events`; PostgreSQL delivers them to every listening session when, and only when, the transaction commits,
-- folded to one per transaction (the payload is constant). Statement triggers: one notice per statement at most,
-- whatever the number of rows, and nothing for a rolled-back transaction. A hint is never the only way work is
-- found: every node also polls.
CREATE FUNCTION caravan_wake_mailbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('caravan_mailbox', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION caravan_wake_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('caravan_events', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "actor_messages_wake" AFTER INSERT ON "actor_messages" FOR EACH STATEMENT EXECUTE FUNCTION caravan_wake_mailbox();
--> statement-breakpoint
CREATE TRIGGER "events_wake" AFTER INSERT ON "events" FOR EACH STATEMENT EXECUTE FUNCTION caravan_wake_events();
