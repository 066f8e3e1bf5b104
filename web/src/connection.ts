/**
 * The one connection: MQTT.js over WebSockets to the broker, feeding the one store.
 *
 * It subscribes to the retained topics of one table (or of every table, `table: "+"`) and the
 * event stream, routes each message into the store, and tells the store about the link. After a
 * reconnect MQTT.js subscribes again and the broker re-sends every retained topic, so the store
 * is repainted from the retained state. `send` publishes a command of the vocabulary and
 * resolves with the service's reply (docs/mqtt.md, "Commands and replies").
 */

import type { MqttClient } from "mqtt";
import {
  type Delivery,
  isSection,
  PUBLISHED,
  ROUTES,
  type Router,
  sectionRouter,
  TOPIC,
  type TopicName,
} from "./generated/topics";
import type { OverlaySettings } from "./onair";
import type { EventMessage, Reply, SectionName } from "./payloads";
import { SECTION_NAMES } from "./payloads";
import type { Store } from "./store";

export interface ConnectionOptions {
  url: string;
  base: string;
  /** a table id, or "+" for every table on the broker */
  table: string;
  username?: string | null;
  password?: string | null;
  /** retained sections to follow (default: all) */
  sections?: readonly SectionName[];
  heroes?: boolean;
  events?: boolean;
  errors?: boolean;
  /** follow `…/reply` too (pages that send commands) */
  replies?: boolean;
  /** follow the WorldKeeper's topics too (`…/gm_events`: the events withheld from `…/events`,
   *  whole; `…/gm`: the whole roster; `…/audit`: the bag audit): the gm's page, whose login
   *  alone may read them */
  worldkeeper?: boolean;
  /** follow the stream overlays' switches (`…/overlay`, the WorldKeeper's: ./onair.ts): the
   *  overlay, which obeys them, and gm.html, which sets them and shows them as they are */
  onAir?: boolean;
  /** follow the venue's uplink flags too (`<base>/uplink/<table>`, docs/convention.md), in a
   *  subscription of their own: a table's own broker may refuse it, and that changes nothing */
  uplinks?: boolean;
  /** false: the page's URL named no broker (`broker=`), and `url` is only a guess */
  brokerGiven?: boolean;
}

/** CONNACK codes of a refused login: MQTT 3.1.1's 4 and 5, MQTT 5's 134 and 135. */
const LOGIN_REFUSED = new Set([4, 5, 134, 135]);

/** What to do when the broker refuses the login (issue 32 item 2). */
export function refusedAdvice(username: string | null | undefined): string {
  return username
    ? `the broker refused user ${username}: check the password from \`rhuna-table accounts urls\``
    : "the broker refused a page without a login: open the address `rhuna-table accounts urls` prints (it carries #username=…&password=…)";
}

/** What to do when the page named no broker and the guess failed (issue 32 item 2). */
export function noBrokerAdvice(
  loc: Pick<Location, "origin" | "pathname" | "hostname">,
  table: string,
): string {
  const example = `${loc.origin}${loc.pathname}?table=${table === "+" ? "example" : table}#broker=ws://${loc.hostname || "pi.local"}:9001`;
  return `this page needs its broker: add broker= to its address, e.g. ${example} (\`rhuna-table accounts urls\` prints each page's)`;
}

export class CommandTimeout extends Error {}

/** how long a repaint after a gap may take before the next gap asks again (ms) */
const REPAINT_WAIT_MS = 10_000;

export class Connection {
  private client: MqttClient | null = null;
  private waiting = new Map<string, (reply: Reply) => void>();
  private counter = 0;
  private routed = 0;
  /** a repaint asked for after a gap, until its retained status arrives */
  private repainting = false;
  /** `stop` was called: a client MQTT.js hands over later is not made */
  private stopped = false;
  private readonly id = Math.random().toString(36).slice(2, 10);

  constructor(
    private readonly store: Store,
    private readonly opts: ConnectionOptions,
  ) {}

  /** Which of the topics that are not sections this connection follows, by name. */
  private follows(): Record<Exclude<TopicName, SectionName>, boolean> {
    return {
      events: this.opts.events ?? true,
      error: this.opts.errors ?? true,
      reply: this.opts.replies ?? false,
      gm_events: this.opts.worldkeeper ?? false,
      gm: this.opts.worldkeeper ?? false,
      audit: this.opts.worldkeeper ?? false,
      overlay: this.opts.onAir ?? false,
      // the service's clock (`now`, republished every few seconds): the age of its stamps
      info: true,
      heroes: this.opts.heroes ?? true,
      status: true,
    };
  }

  /**
   * The topic filters this connection subscribes to, in the catalogue's order (the streams,
   * `…/info`, the sections in the page's order, the heroes, `…/status` last: the broker sends a
   * subscription's retained messages in the order of its filters, so the retained status
   * closes the table's whole state).
   */
  filters(): string[] {
    return this.subscribed().map(([, filter]) => filter);
  }

  /** The retained topics of `filters()`, `…/status` last. */
  retainedFilters(): string[] {
    return this.subscribed()
      .filter(([retained]) => retained)
      .map(([, filter]) => filter);
  }

  /** [retained, filter] of every topic followed, in the order of `filters()` */
  private subscribed(): [boolean, string][] {
    const root = `${this.opts.base}/${this.opts.table}`;
    const follows = this.follows();
    const sections = this.opts.sections ?? SECTION_NAMES;
    const out: [boolean, string][] = [];
    let sectionsDone = false;
    for (const t of PUBLISHED) {
      if (isSection(t.name)) {
        if (!sectionsDone) for (const s of sections) out.push([true, `${root}/${TOPIC[s]}`]);
        sectionsDone = true;
      } else if (follows[t.name]) out.push([t.retained, `${root}/${TOPIC[t.name]}`]);
    }
    return out;
  }

  /** The venue's uplink flags: `rhuna/uplink/+` on the wall, `rhuna/uplink/<table>` else. */
  uplinkFilter(): string {
    return `${this.opts.base}/uplink/${this.opts.table}`;
  }

  start(): void {
    this.store.setLink("connecting");
    this.takeInlined(); // if boot has not already
    performance.mark("rhuna:connecting");
    this.stopped = false;
    // MQTT.js (most of the page's script) is evaluated only now, not before the first paint:
    // esbuild keeps a dynamic import in the one bundle, its module initialised on first use
    void import("mqtt").then(({ default: mqtt }) => {
      if (!this.stopped) this.connect(mqtt);
    });
  }

  private connect(mqtt: typeof import("mqtt").default): void {
    const client = mqtt.connect(this.opts.url, {
      clientId: `rhuna-web-${this.id}`,
      username: this.opts.username ?? undefined,
      password: this.opts.password ?? undefined,
      clean: true,
      protocolVersion: 5, // a publish the ACL refuses gets a PUBACK error (3.1.1: silently dropped)
      keepalive: 10,
      reconnectPeriod: 1000,
      // MQTT.js's own default: a connection that has not had its CONNACK by then is dropped
      // and started again, so on a starved machine (a Pi at a busy venue, OBS beside the
      // browser) a short one never lets a slow connect finish; a broker that is not there
      // refuses the socket at once, and the page says so at once anyway
      connectTimeout: 30_000,
      resubscribe: true,
      // the first socket is the one the page opened before its script ran (preconnect.ts)
      createWebsocket: (url: string, protocols: string[]) => takePreconnected(url, protocols),
    });
    this.client = client;
    client.on("connect", () => {
      performance.mark("rhuna:connected");
      this.repainting = false; // the subscription below sends every retained topic anyway
      client.subscribe(this.filters(), { qos: 1 }, (err) => {
        if (err) this.store.setLink("offline", `subscribe refused: ${err.message}`);
        else this.store.setLink("online");
      });
      // the other tables' …/status, in a subscription of its own (an ACL may refuse it): a page
      // whose table never answers can say which tables this broker does have
      if (this.opts.table !== "+")
        client.subscribe(`${this.opts.base}/+/${TOPIC.status}`, { qos: 0 }, (err) => {
          if (err) console.info(`rhuna: the other tables are not readable here (${err.message})`);
        });
      if (this.opts.uplinks)
        client.subscribe(this.uplinkFilter(), { qos: 1 }, (err) => {
          if (err) console.info(`rhuna: no venue uplink flags here (${err.message})`);
        });
    });
    client.on("reconnect", () => this.store.setLink("connecting", this.store.snapshot.linkError));
    client.on("close", () => {
      if (this.opts.brokerGiven === false && !this.store.snapshot.linkAdvice)
        this.store.setLinkAdvice(this.noBroker());
      this.store.setLink("offline", this.store.snapshot.linkError);
    });
    client.on("offline", () => this.store.setLink("offline", this.store.snapshot.linkError));
    client.on("error", (err) => {
      const code = (err as { code?: unknown }).code;
      if (typeof code === "number" && LOGIN_REFUSED.has(code))
        this.store.setLinkAdvice(refusedAdvice(this.opts.username));
      else if (this.opts.brokerGiven === false) this.store.setLinkAdvice(this.noBroker());
      this.store.setLink("offline", err.message);
    });
    client.on("message", (topic, payload, packet) => this.route(topic, payload, packet.retain));
  }

  /**
   * The table's state as the page server inlined it in the page (companion/pages/server.py:
   * the public retained topics the service last published), routed as the broker's retained
   * copies would be: the page paints the table before its WebSocket is even open, and the
   * broker's own copies, when they come, take over (docs/web.md, "How fast a page paints").
   * Only once: a reconnect repaints from the broker. `boot` takes it before the page's first
   * paint (app.ts), else `start` does.
   */
  takeInlined(): boolean {
    const block = document.getElementById("rhuna-first");
    if (!block?.textContent) return false;
    block.remove();
    let topics: unknown;
    try {
      topics = JSON.parse(block.textContent);
    } catch {
      return false; // the broker's copies will come
    }
    if (typeof topics !== "object" || topics === null) return false;
    for (const [topic, text] of Object.entries(topics))
      if (typeof text === "string") this.routeText(topic, text, true);
    performance.mark("rhuna:inlined");
    return true;
  }

  private noBroker(): string {
    return noBrokerAdvice(location, this.opts.table);
  }

  stop(): void {
    this.stopped = true;
    this.client?.end(true);
    this.client = null;
  }

  /** Publish `command` (a command of the vocabulary) to the table; resolve with its reply. */
  send(
    command: Record<string, unknown>,
    table = this.opts.table,
    timeoutMs = 10_000,
  ): Promise<Reply> {
    const client = this.client;
    if (!client) return Promise.reject(new Error("not connected"));
    if (!this.opts.replies)
      return Promise.reject(new Error("this connection does not follow replies"));
    const transaction = `web-${this.id}-${++this.counter}`;
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(transaction);
        reject(new CommandTimeout(`no reply to ${String(command.cmd)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(transaction, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      const body = JSON.stringify({ ...command, transaction });
      client.publish(`${this.opts.base}/${table}/${TOPIC.command}`, body, { qos: 1 }, (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.waiting.delete(transaction);
        reject(err);
      });
    });
  }

  /** Publish the stream overlays' switches, retained (`…/overlay`: the gm login's alone, by
   *  the ACL); resolves once the broker took it (PUBACK), rejects on its refusal. That it took
   *  it is not that it holds it: gm.html shows the switches as the broker sends them back. */
  setOnAir(settings: OverlaySettings, table = this.opts.table): Promise<void> {
    const client = this.client;
    if (!client) return Promise.reject(new Error("not connected"));
    const topic = `${this.opts.base}/${table}/${TOPIC.overlay}`;
    return new Promise<void>((resolve, reject) => {
      client.publish(topic, JSON.stringify(settings), { qos: 1, retain: true }, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  /**
   * After a gap in the events: subscribe to the retained topics again, so the broker sends
   * the table's whole state once more (the retained status, last, says it has all come).
   * A reconnect does the same by itself; one request at a time.
   */
  private repaint(): void {
    const client = this.client;
    if (!client?.connected || this.repainting) return;
    this.repainting = true;
    const map: Record<string, { qos: 1 }> = {};
    for (const f of this.retainedFilters()) map[f] = { qos: 1 };
    performance.mark("rhuna:repaint");
    // a retained status that never comes must not stop the next gap from asking again
    setTimeout(() => {
      this.repainting = false;
    }, REPAINT_WAIT_MS);
    // `resubscribe: true`: MQTT.js sends it although these filters are subscribed already
    client.subscribe(
      { ...map, resubscribe: true } as unknown as Record<string, { qos: 1 }>,
      {
        qos: 1,
      },
      (err) => {
        if (err) this.repainting = false;
      },
    );
  }

  private route(topic: string, payload: Uint8Array, retained = false): void {
    if (!this.routed++) performance.mark("rhuna:first-message");
    this.routeText(topic, new TextDecoder().decode(payload), retained);
  }

  private routeText(topic: string, text: string, retained: boolean): void {
    const parts = topic.split("/");
    const table = parts[1];
    const what = parts[2];
    if (parts[0] !== this.opts.base || table === undefined || what === undefined) return;
    if (table === "uplink") {
      // rhuna/uplink/<table>: the bridge's notification, "1" or "0" (docs/convention.md); no
      // table is called "uplink" (`rhuna-table venue` refuses it)
      if (this.opts.uplinks && parts.length === 3 && (text === "1" || text === "0"))
        this.store.setUplink(what, text === "1");
      return;
    }
    const foreign = this.opts.table !== "+" && table !== this.opts.table;
    // another table's messages: only its `…/status` (a page whose table never answers says
    // which tables this broker does have)
    const router = foreign ? this.others : this.router;
    const levels = parts.slice(2);
    const hit = ROUTES.find(
      ([, pattern]) =>
        pattern.length === levels.length &&
        pattern.every((p, i) => p === levels[i] || p.startsWith("<")),
    );
    if (!hit) return;
    const [name, pattern, isText] = hit;
    // the table's type says each handler's payload: the one cast, from the wire to it
    const handler = router[name] as ((payload: unknown, at: Delivery) => void) | undefined;
    if (!handler) return;
    const param = levels[pattern.findIndex((p) => p.startsWith("<"))] ?? "";
    let data: unknown = text;
    if (!isText) {
      try {
        data = text === "" ? null : JSON.parse(text);
      } catch {
        console.warn(`rhuna: ${topic}: not JSON, ignored`);
        if (!foreign) this.unreadable[name]?.({ table, retained, param: "" });
        return;
      }
    }
    handler(data, { table, retained, param });
  }

  /** what a payload that is not JSON does, where it is more than ignored: the WorldKeeper's
   *  switches (a bad one puts the overlays back on their defaults, ./onair.ts) */
  private readonly unreadable: Partial<Record<TopicName, (at: Delivery) => void>> = {
    overlay: (at) => this.store.setOnAir(at.table, undefined, at.retained),
  };

  /** what another table's messages do */
  private readonly others: Partial<Router> = {
    status: (text, at) => {
      if (text) this.store.noteOther(at.table);
    },
  };

  /** what each topic of this connection's table does: one handler per topic (docs/topics.json) */
  private readonly router: Router = {
    ...sectionRouter((name, value, at) => {
      const sections: readonly string[] = this.opts.sections ?? SECTION_NAMES;
      if (sections.includes(name)) this.store.setSection(at.table, name, value, at.retained);
    }),
    status: (text, at) => {
      if (text === "online" || text === "offline") {
        this.store.setStatus(at.table, text, at.retained);
        if (at.retained) this.repainting = false;
      }
    },
    info: (info, at) => {
      if (info !== null) this.store.setInfo(at.table, info.now, at.retained, info.name);
    },
    heroes: (hero, at) => this.store.setHero(at.table, at.param, hero, at.retained),
    events: (event, at) => {
      // a withheld event's stand-in: the gm's page has the event itself from `…/gm_events`,
      // published before it (the same seq: the stand-in is then a duplicate)
      if (this.opts.worldkeeper && isEvent(event) && event.type === "withheld") return;
      if (isEvent(event) && this.store.addEvent(at.table, event)) this.repaint();
    },
    gm_events: (event, at) => {
      if (isEvent(event) && this.store.addEvent(at.table, event)) this.repaint();
    },
    gm: (gm, at) => this.store.setGm(at.table, gm),
    audit: (audit, at) => this.store.setAudit(at.table, audit),
    overlay: (switches, at) => {
      this.store.setOnAir(at.table, switches, at.retained);
      const problem = this.store.snapshot.tables.get(at.table)?.onAir.problem;
      if (problem)
        console.warn(`rhuna: the overlays' switches ignored (${problem}): the defaults hold`);
    },
    error: (error, at) => {
      if (error !== null) this.store.setError(at.table, error);
    },
    reply: (reply) => {
      if (reply === null) return;
      const done = this.waiting.get(String(reply.transaction));
      if (done) {
        this.waiting.delete(String(reply.transaction));
        done(reply);
      }
    },
  };
}

/** The socket `preconnect.ts` opened, if it is still usable and for this URL; else a new one. */
function takePreconnected(url: string, protocols: string[]): WebSocket {
  const pre = window.rhunaPreconnect;
  window.rhunaPreconnect = undefined;
  if (pre) {
    const usable =
      pre.socket.readyState === WebSocket.CONNECTING || pre.socket.readyState === WebSocket.OPEN;
    if (usable && sameUrl(pre.url, url)) {
      performance.mark("rhuna:preconnect-taken");
      return pre.socket;
    }
    pre.socket.close();
  }
  return new WebSocket(url, protocols);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

function isEvent(data: unknown): data is EventMessage {
  return (
    typeof data === "object" && data !== null && typeof (data as EventMessage).seq === "number"
  );
}
