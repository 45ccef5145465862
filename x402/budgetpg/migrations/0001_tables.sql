-- The tables of x402/budgetpg. Amounts are numeric (atomic units, any size); times are Unix
-- nanoseconds given by the callers, never read from the server's clock. Hold states follow
-- ledger.State: 0 reserved, 1 signed, 2 refused, 3 in doubt, 4 committed, 5 released.

-- One row per budget: its limits (set by the first Configure, then compared), its sums and
-- the running sums of its windows. Every change of a budget's holds locks this row first,
-- so that the changes of all processes apply one after the other.
CREATE TABLE x402_budgets (
	id          bigserial PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	-- limits is the limits' canonical form, NULL until the first Configure.
	limits      text,
	total       numeric,
	per_payment numeric,
	per_payee   numeric,
	-- payee_caps: a payee limit applies to some payee (per_payee, or a named payee's).
	payee_caps  boolean NOT NULL DEFAULT false,
	-- One element per window, in the limits' order: its length (ns), amount (NULL: none)
	-- and count (0: none); the latest time it was moved to (mark); the first hold that may
	-- still be inside (tail: every hold before it was reserved at or before mark - length);
	-- the sum and number of the holds reserved after mark - length and not released. Hold
	-- ids grow with reservation times, so a window's holds are a range of ids from its tail.
	w_length    bigint[] NOT NULL DEFAULT '{}',
	w_amount    numeric[] NOT NULL DEFAULT '{}',
	w_count     bigint[] NOT NULL DEFAULT '{}',
	w_mark      bigint[] NOT NULL DEFAULT '{}',
	w_tail      bigint[] NOT NULL DEFAULT '{}',
	w_sum       numeric[] NOT NULL DEFAULT '{}',
	w_n         bigint[] NOT NULL DEFAULT '{}',
	-- spent: the committed holds; held: the reserved, signed, refused and in doubt ones;
	-- refused: the refused holds that expire; next_deadline: no refused hold expires before
	-- it (NULL: none expires), so that an operation looks for expired holds only after it.
	spent       numeric NOT NULL DEFAULT 0,
	held        numeric NOT NULL DEFAULT 0,
	refused     numeric NOT NULL DEFAULT 0,
	next_deadline bigint,
	-- The latest hold id given, and the latest reservation time (or time a refused
	-- reservation moved the windows to): a later reservation is never recorded earlier.
	last_hold   bigint NOT NULL DEFAULT 0,
	last_at     bigint NOT NULL DEFAULT 0,
	created_at  timestamptz NOT NULL DEFAULT now()
);

-- The accounts of the payees a limit applies to: named ones (cap set) are made by the first
-- Configure, the others at their first reservation (cap NULL: the budget's per_payee).
CREATE TABLE x402_budget_payees (
	budget_id bigint NOT NULL REFERENCES x402_budgets (id),
	payee     text NOT NULL,
	cap       numeric,
	used      numeric NOT NULL DEFAULT 0,
	refused   numeric NOT NULL DEFAULT 0,
	PRIMARY KEY (budget_id, payee)
);

-- One row per open Store: pid is its liveness connection's backend, which holds the
-- session-level advisory lock (class, pid) for as long as the Store is open.
CREATE TABLE x402_budget_sessions (
	id        bigserial PRIMARY KEY,
	budget_id bigint NOT NULL REFERENCES x402_budgets (id),
	pid       integer NOT NULL,
	started   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX x402_budget_sessions_budget ON x402_budget_sessions (budget_id);
CREATE INDEX x402_budget_sessions_pid ON x402_budget_sessions (pid, id);

-- Every hold ever reserved (committed and released ones stay, so that HoldState answers
-- for them and the ledger can be audited). The primary key orders a budget's holds by id,
-- which is their order of reservation: the windows walk it from their tails.
CREATE TABLE x402_budget_holds (
	budget_id   bigint NOT NULL REFERENCES x402_budgets (id),
	id          bigint NOT NULL,
	amount      numeric NOT NULL,
	pay_to      text NOT NULL,
	-- payee is the lower-case pay_to when a payee limit applies to it: its account.
	payee       text,
	rail        text NOT NULL,
	resource    text NOT NULL,
	-- payer and asset (who pays, with what) and ref (the rail's lookup data, set at signing)
	-- are what a reconciler needs to look the payment up on its chain.
	payer       text NOT NULL,
	asset       text NOT NULL,
	reserved_at bigint NOT NULL,
	session_id  bigint NOT NULL,
	signing_id  text,
	expires     bigint,
	ref         text NOT NULL DEFAULT '',
	-- deadline is expires plus the expiry margin: a refused hold is released once the
	-- caller's time is after it.
	deadline    bigint,
	state       smallint NOT NULL,
	PRIMARY KEY (budget_id, id)
);
-- The outstanding payments by signing id (Sign's duplicates, Resolve).
CREATE UNIQUE INDEX x402_budget_holds_signing ON x402_budget_holds (budget_id, signing_id)
	WHERE state IN (1, 2, 3);
-- The refused holds that expire, by deadline (their expiry, RetryAt of the total).
CREATE INDEX x402_budget_holds_expiry ON x402_budget_holds (budget_id, deadline, id)
	WHERE state = 2 AND deadline IS NOT NULL;
-- The same per payee (RetryAt of a payee's limit).
CREATE INDEX x402_budget_holds_payee_expiry ON x402_budget_holds (budget_id, payee, deadline, id)
	WHERE state = 2 AND deadline IS NOT NULL AND payee IS NOT NULL;
-- The outstanding holds, by session (Outstanding, and the holds of a dead session).
CREATE INDEX x402_budget_holds_outstanding ON x402_budget_holds (budget_id, session_id)
	WHERE state IN (0, 1, 2, 3);
