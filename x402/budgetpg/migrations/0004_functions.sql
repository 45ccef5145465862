-- The operations of x402/budgetpg from version 3 on, each one statement for the client: a
-- function that locks the budget's row (SELECT ... FOR UPDATE), so that the changes of every
-- process apply one after the other, checks, records and returns. The b variables hold a
-- budget's row while a function changes it; x402_budget_save writes it back.
--
-- Time is the server's: x402_budget_now reads clock_timestamp(), once per operation, after
-- the budget's lock is taken, so one clock decides for a whole fleet whatever the clocks of
-- its machines say. No reading is kept for later decisions. The argument p_now, NULL but in
-- the SDK's own tests, gives the time instead.

-- x402_budget_now returns p_now, or the server's clock in Unix nanoseconds.
CREATE FUNCTION x402_budget_now(p_now bigint) RETURNS bigint LANGUAGE sql VOLATILE AS $$
	SELECT coalesce(p_now, (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint)
$$;

-- x402_budget_save writes back what the operations change in a budget's row.
CREATE FUNCTION x402_budget_save(b x402_budgets) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	UPDATE x402_budgets SET w_mark = b.w_mark, w_sum = b.w_sum, w_n = b.w_n,
		spent = b.spent, held = b.held, refused = b.refused, next_deadline = b.next_deadline, last_seq = b.last_seq
	WHERE id = b.id;
END $$;

-- x402_budget_unrefuse takes refused hold h out of the sums of the refused holds that expire.
CREATE FUNCTION x402_budget_unrefuse(INOUT b x402_budgets, h x402_budget_holds) LANGUAGE plpgsql AS $$
BEGIN
	IF h.state = 2 AND h.deadline IS NOT NULL THEN
		b.refused := b.refused - h.amount;
		IF h.payee IS NOT NULL THEN
			UPDATE x402_budget_payees SET refused = refused - h.amount
			WHERE budget_id = h.budget_id AND payee = h.payee;
		END IF;
	END IF;
END $$;

-- x402_budget_release gives back the amount of live hold h: out of held, its payee's use and
-- the windows that count it.
CREATE FUNCTION x402_budget_release(INOUT b x402_budgets, h x402_budget_holds) LANGUAGE plpgsql AS $$
BEGIN
	b := x402_budget_unrefuse(b, h);
	b.held := b.held - h.amount;
	IF h.payee IS NOT NULL THEN
		UPDATE x402_budget_payees SET used = used - h.amount WHERE budget_id = h.budget_id AND payee = h.payee;
	END IF;
	FOR i IN 1 .. coalesce(array_length(b.w_length, 1), 0) LOOP
		IF h.reserved_at > b.w_mark[i] - b.w_length[i] THEN
			b.w_sum[i] := b.w_sum[i] - h.amount;
			b.w_n[i] := b.w_n[i] - 1;
		END IF;
	END LOOP;
	UPDATE x402_budget_holds SET state = 5 WHERE budget_id = h.budget_id AND hold = h.hold;
END $$;

-- x402_budget_commit moves the amount of live hold h from held to spent; it keeps counting in
-- its payee's use and its windows.
CREATE FUNCTION x402_budget_commit(INOUT b x402_budgets, h x402_budget_holds) LANGUAGE plpgsql AS $$
BEGIN
	b := x402_budget_unrefuse(b, h);
	b.held := b.held - h.amount;
	b.spent := b.spent + h.amount;
	UPDATE x402_budget_holds SET state = 4 WHERE budget_id = h.budget_id AND hold = h.hold;
END $$;

-- x402_budget_expire releases the refused holds whose deadline is before p_now, when
-- next_deadline says there may be some, through the index by deadline, 100 at a time; then
-- it finds the next deadline.
CREATE FUNCTION x402_budget_expire(INOUT b x402_budgets, p_now bigint) LANGUAGE plpgsql AS $$
DECLARE
	h x402_budget_holds;
	found_some boolean := true;
BEGIN
	IF b.next_deadline IS NULL OR b.next_deadline >= p_now THEN
		RETURN;
	END IF;
	WHILE found_some LOOP
		found_some := false;
		FOR h IN SELECT * FROM x402_budget_holds
			WHERE budget_id = b.id AND state = 2 AND deadline IS NOT NULL AND deadline < p_now
			ORDER BY deadline, seq LIMIT 100
		LOOP
			b := x402_budget_release(b, h);
			found_some := true;
		END LOOP;
	END LOOP;
	SELECT deadline INTO b.next_deadline FROM x402_budget_holds
	WHERE budget_id = b.id AND state = 2 AND deadline IS NOT NULL ORDER BY deadline, seq LIMIT 1;
END $$;

-- x402_budget_lock locks budget p_budget's row and returns it, its refused holds expired at
-- the time p_now gives, read once the lock is taken.
CREATE FUNCTION x402_budget_lock(p_budget bigint, p_now bigint) RETURNS x402_budgets LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
BEGIN
	SELECT * INTO STRICT b FROM x402_budgets WHERE id = p_budget FOR UPDATE;
	RETURN x402_budget_expire(b, x402_budget_now(p_now));
END $$;

-- x402_budget_touch expires the refused holds of budget p_budget, and locks the budget's row
-- only when some may have expired: the reading operations call it first.
CREATE FUNCTION x402_budget_touch(p_budget bigint, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM x402_budgets WHERE id = p_budget AND next_deadline < x402_budget_now(p_now)) THEN
		PERFORM x402_budget_save(x402_budget_lock(p_budget, p_now));
	END IF;
END $$;

-- x402_budget_span returns the sum and number of the holds of budget p_budget not released
-- and reserved after p_after and at or before p_upto, walked through the index by
-- reservation time 100 at a time: whatever plan the statistics suggest, no step reads more
-- than 100 holds, and the walk reads only the holds in the span.
CREATE FUNCTION x402_budget_span(p_budget bigint, p_after bigint, p_upto bigint, OUT o_sum numeric, OUT o_n bigint)
LANGUAGE plpgsql AS $$
DECLARE
	h record;
	at bigint := p_after;
	s bigint := 9223372036854775807; -- after every seq reserved at p_after
	more boolean := true;
	rows int;
BEGIN
	o_sum := 0;
	o_n := 0;
	WHILE more LOOP
		rows := 0;
		FOR h IN SELECT seq, amount, reserved_at FROM x402_budget_holds
			WHERE budget_id = p_budget AND (reserved_at, seq) > (at, s) AND reserved_at <= p_upto AND state <> 5
			ORDER BY reserved_at, seq LIMIT 100
		LOOP
			o_sum := o_sum + h.amount;
			o_n := o_n + 1;
			at := h.reserved_at;
			s := h.seq;
			rows := rows + 1;
		END LOOP;
		more := rows = 100;
	END LOOP;
END $$;

-- x402_budget_advance moves every window to p_now, forward or back: when it moves forward,
-- the holds whose time in it has passed leave its running sums; when it moves back (the
-- clock was corrected), the holds reserved within its length before p_now count again.
-- Either way only the holds that leave or come back are read.
CREATE FUNCTION x402_budget_advance(INOUT b x402_budgets, p_now bigint) LANGUAGE plpgsql AS $$
DECLARE
	old_cut bigint;
	new_cut bigint;
	s numeric;
	n bigint;
BEGIN
	FOR i IN 1 .. coalesce(array_length(b.w_length, 1), 0) LOOP
		CONTINUE WHEN p_now = b.w_mark[i];
		old_cut := b.w_mark[i] - b.w_length[i];
		new_cut := p_now - b.w_length[i];
		IF new_cut > old_cut THEN
			SELECT o_sum, o_n INTO s, n FROM x402_budget_span(b.id, old_cut, new_cut);
			b.w_sum[i] := b.w_sum[i] - s;
			b.w_n[i] := b.w_n[i] - n;
		ELSE
			SELECT o_sum, o_n INTO s, n FROM x402_budget_span(b.id, new_cut, old_cut);
			b.w_sum[i] := b.w_sum[i] + s;
			b.w_n[i] := b.w_n[i] + n;
		END IF;
		b.w_mark[i] := p_now;
	END LOOP;
END $$;

-- x402_budget_reserve checks every limit of budget p_budget and records a reserved hold of
-- p_amount under id p_hold for session p_session, in one step under the budget's lock. It
-- returns 0 when the hold is recorded; 1 when a limit refuses (nothing recorded; the windows
-- are moved to the reservation's time); 2 when the session is not registered (it was found
-- dead and swept, maybe while this reservation waited for the lock); 3 when a hold with id
-- p_hold exists. The hold goes in by a statement that looks the session up after the lock
-- was taken, so that a sweep that removed it meanwhile is seen: no hold is ever recorded
-- under a session no sweep will find.
CREATE FUNCTION x402_budget_reserve(p_budget bigint, p_session bigint, p_hold bytea, p_amount numeric, p_pay_to text,
	p_rail text, p_resource text, p_payer text, p_asset text, p_now bigint) RETURNS smallint
LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
	acct x402_budget_payees;
	cap numeric;
	at bigint;
	fits boolean;
	n int;
BEGIN
	-- The common case runs three statements, as many as before hold ids and sessions were
	-- checked: the lock, the INSERT and the UPDATE.
	SELECT * INTO STRICT b FROM x402_budgets WHERE id = p_budget FOR UPDATE;
	at := x402_budget_now(p_now);
	b := x402_budget_expire(b, at);
	n := coalesce(array_length(b.w_length, 1), 0);
	IF n > 0 THEN
		b := x402_budget_advance(b, at);
	END IF;
	IF b.payee_caps THEN
		cap := b.per_payee;
		SELECT * INTO acct FROM x402_budget_payees WHERE budget_id = p_budget AND payee = p_pay_to;
		IF acct.cap IS NOT NULL THEN
			cap := acct.cap;
		END IF;
	END IF;
	fits := (b.per_payment IS NULL OR p_amount <= b.per_payment)
		AND (b.total IS NULL OR b.spent + b.held + p_amount <= b.total)
		AND (cap IS NULL OR coalesce(acct.used, 0) + p_amount <= cap);
	FOR i IN 1 .. n LOOP
		EXIT WHEN NOT fits;
		fits := (b.w_count[i] = 0 OR b.w_n[i] < b.w_count[i])
			AND (b.w_amount[i] IS NULL OR b.w_sum[i] + p_amount <= b.w_amount[i]);
	END LOOP;
	IF NOT fits THEN
		PERFORM x402_budget_save(b);
		IF EXISTS (SELECT 1 FROM x402_budget_holds WHERE budget_id = p_budget AND hold = p_hold) THEN
			RETURN 3;
		END IF;
		RETURN 1;
	END IF;
	INSERT INTO x402_budget_holds (budget_id, seq, hold, amount, pay_to, payee, rail, resource, payer, asset, reserved_at,
		session_id, state)
	SELECT p_budget, b.last_seq + 1, p_hold, p_amount, p_pay_to, CASE WHEN cap IS NOT NULL THEN p_pay_to END,
		p_rail, p_resource, p_payer, p_asset, at, p_session, 0
	WHERE EXISTS (SELECT 1 FROM x402_budget_sessions WHERE id = p_session)
	ON CONFLICT (budget_id, hold) DO NOTHING;
	IF NOT FOUND THEN
		PERFORM x402_budget_save(b); -- refused holds may have expired
		IF EXISTS (SELECT 1 FROM x402_budget_holds WHERE budget_id = p_budget AND hold = p_hold) THEN
			RETURN 3;
		END IF;
		RETURN 2;
	END IF;
	b.last_seq := b.last_seq + 1;
	b.held := b.held + p_amount;
	FOR i IN 1 .. n LOOP
		b.w_sum[i] := b.w_sum[i] + p_amount;
		b.w_n[i] := b.w_n[i] + 1;
	END LOOP;
	IF cap IS NOT NULL THEN
		INSERT INTO x402_budget_payees AS p (budget_id, payee, used) VALUES (p_budget, p_pay_to, p_amount)
		ON CONFLICT (budget_id, payee) DO UPDATE SET used = p.used + excluded.used;
	END IF;
	-- x402_budget_save's UPDATE, written out: one function call less on the hot path.
	UPDATE x402_budgets SET w_mark = b.w_mark, w_sum = b.w_sum, w_n = b.w_n,
		spent = b.spent, held = b.held, refused = b.refused, next_deadline = b.next_deadline, last_seq = b.last_seq
	WHERE id = p_budget;
	RETURN 0;
END $$;

-- x402_budget_sign moves reserved hold p_hold to signed with its payment id, expiry and
-- deadline (NULL: unknown). It returns 0 when signed, 1 when the hold is no longer reserved,
-- 2 when there is no such hold, 3 when an outstanding hold has that payment id. It locks the
-- hold only (and the budget when refused holds expire first): signing changes no sum.
CREATE FUNCTION x402_budget_sign(p_budget bigint, p_hold bytea, p_signing text, p_expires bigint,
	p_deadline bigint, p_ref text, p_now bigint) RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
	st smallint;
BEGIN
	PERFORM x402_budget_touch(p_budget, p_now);
	SELECT state INTO st FROM x402_budget_holds WHERE budget_id = p_budget AND hold = p_hold FOR UPDATE;
	IF NOT FOUND THEN
		RETURN 2;
	ELSIF st <> 0 THEN
		RETURN 1;
	ELSIF EXISTS (SELECT 1 FROM x402_budget_holds
		WHERE budget_id = p_budget AND signing_id = p_signing AND state IN (1, 2, 3)) THEN
		RETURN 3;
	END IF;
	UPDATE x402_budget_holds SET state = 1, signing_id = p_signing, expires = p_expires, deadline = p_deadline,
		ref = p_ref
	WHERE budget_id = p_budget AND hold = p_hold;
	RETURN 0;
END $$;

-- x402_budget_mark moves hold p_hold to state p_to (2 refused, 3 in doubt, 4 committed,
-- 5 released) as the state machine allows. o_state is the hold's state afterwards; o_code
-- is 0, 1 for a release of a signed hold (nothing changes), 2 when there is no such hold.
CREATE FUNCTION x402_budget_mark(p_budget bigint, p_hold bytea, p_to smallint, p_now bigint,
	OUT o_state smallint, OUT o_code smallint) LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
	h x402_budget_holds;
BEGIN
	o_code := 0;
	b := x402_budget_lock(p_budget, p_now);
	SELECT * INTO h FROM x402_budget_holds WHERE budget_id = p_budget AND hold = p_hold FOR UPDATE;
	IF NOT FOUND THEN
		o_code := 2;
	ELSE
		o_state := h.state;
		IF h.state IN (4, 5) THEN
			NULL; -- final
		ELSIF p_to = 5 AND h.state = 0 THEN
			b := x402_budget_release(b, h);
			o_state := 5;
		ELSIF p_to = 5 THEN
			o_code := 1;
		ELSIF p_to = 4 THEN
			b := x402_budget_commit(b, h);
			o_state := 4;
		ELSIF p_to = 2 AND h.state = 1 THEN
			IF h.deadline IS NOT NULL THEN
				b.refused := b.refused + h.amount;
				b.next_deadline := least(b.next_deadline, h.deadline);
				IF h.payee IS NOT NULL THEN
					UPDATE x402_budget_payees SET refused = refused + h.amount
					WHERE budget_id = p_budget AND payee = h.payee;
				END IF;
			END IF;
			UPDATE x402_budget_holds SET state = 2 WHERE budget_id = p_budget AND hold = h.hold;
			o_state := 2;
		ELSIF p_to = 3 AND h.state IN (1, 2) THEN
			b := x402_budget_unrefuse(b, h);
			UPDATE x402_budget_holds SET state = 3 WHERE budget_id = p_budget AND hold = h.hold;
			o_state := 3;
		END IF;
	END IF;
	PERFORM x402_budget_save(b);
END $$;

-- x402_budget_discard releases hold p_hold when it is reserved or signed (its payment never
-- left). It returns the hold's state afterwards, or -1 when there is no such hold.
CREATE FUNCTION x402_budget_discard(p_budget bigint, p_hold bytea, p_now bigint) RETURNS smallint
LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
	h x402_budget_holds;
BEGIN
	b := x402_budget_lock(p_budget, p_now);
	SELECT * INTO h FROM x402_budget_holds WHERE budget_id = p_budget AND hold = p_hold FOR UPDATE;
	IF NOT FOUND THEN
		PERFORM x402_budget_save(b);
		RETURN -1;
	END IF;
	IF h.state IN (0, 1) THEN
		b := x402_budget_release(b, h);
		h.state := 5;
	END IF;
	PERFORM x402_budget_save(b);
	RETURN h.state;
END $$;

-- x402_budget_resolve ends the outstanding signed hold whose payment id is p_signing:
-- settled commits it; not settled releases it once the server's clock reads a time after its
-- deadline. It returns 0, 1 when no outstanding signed hold has that id, 2 when it could still
-- settle.
CREATE FUNCTION x402_budget_resolve(p_budget bigint, p_signing text, p_settled boolean, p_now bigint)
RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
	h x402_budget_holds;
	code smallint := 0;
BEGIN
	b := x402_budget_lock(p_budget, p_now);
	SELECT * INTO h FROM x402_budget_holds
	WHERE budget_id = p_budget AND signing_id = p_signing AND state IN (1, 2, 3) FOR UPDATE;
	IF NOT FOUND THEN
		code := 1;
	ELSIF p_settled THEN
		b := x402_budget_commit(b, h);
	ELSIF h.deadline IS NULL OR x402_budget_now(p_now) <= h.deadline THEN
		code := 2;
	ELSE
		b := x402_budget_release(b, h);
	END IF;
	PERFORM x402_budget_save(b);
	RETURN code;
END $$;

-- x402_budget_totals returns the spent and held of budget p_budget.
CREATE FUNCTION x402_budget_totals(p_budget bigint, p_now bigint, OUT o_spent text, OUT o_held text)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM x402_budget_touch(p_budget, p_now);
	SELECT spent::text, held::text INTO o_spent, o_held FROM x402_budgets WHERE id = p_budget;
END $$;

-- x402_budget_outstanding returns the holds of budget p_budget neither committed nor
-- released, in reservation order.
CREATE FUNCTION x402_budget_outstanding(p_budget bigint, p_now bigint) RETURNS SETOF x402_budget_holds
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM x402_budget_touch(p_budget, p_now);
	RETURN QUERY SELECT * FROM x402_budget_holds WHERE budget_id = p_budget AND state IN (0, 1, 2, 3) ORDER BY seq;
END $$;

-- x402_budget_hold_state returns the state of hold p_hold, or -1 when there is no such hold.
CREATE FUNCTION x402_budget_hold_state(p_budget bigint, p_hold bytea, p_now bigint) RETURNS smallint
LANGUAGE plpgsql AS $$
DECLARE
	st smallint;
BEGIN
	PERFORM x402_budget_touch(p_budget, p_now);
	SELECT state INTO st FROM x402_budget_holds WHERE budget_id = p_budget AND hold = p_hold;
	RETURN coalesce(st, -1);
END $$;

-- x402_budget_set_limits records limits p_limits (their canonical form) as budget
-- p_budget's, with the columns the reservation reads, and makes the running sums again at
-- the time p_now gives: each window counts the holds not released reserved within its length
-- before that time (or at a later one); with p_payees_changed, the accounts of the payees a
-- limit applies to are made again from every hold of the budget. Every hold and Spent stay.
CREATE FUNCTION x402_budget_set_limits(p_budget bigint, p_limits text, p_total numeric, p_per_payment numeric,
	p_per_payee numeric, p_lengths bigint[], p_amounts numeric[], p_counts bigint[], p_payees text[], p_caps numeric[],
	p_payees_changed boolean, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
	now bigint;
	s numeric;
	n bigint;
BEGIN
	SELECT * INTO STRICT b FROM x402_budgets WHERE id = p_budget FOR UPDATE;
	now := x402_budget_now(p_now);
	b := x402_budget_expire(b, now);
	b.w_mark := '{}';
	b.w_sum := '{}';
	b.w_n := '{}';
	FOR i IN 1 .. coalesce(array_length(p_lengths, 1), 0) LOOP
		SELECT o_sum, o_n INTO s, n FROM x402_budget_span(p_budget, now - p_lengths[i], 9223372036854775807);
		b.w_mark := b.w_mark || now;
		b.w_sum := b.w_sum || s;
		b.w_n := b.w_n || n;
	END LOOP;
	PERFORM x402_budget_save(b);
	UPDATE x402_budgets SET limits = p_limits, total = p_total, per_payment = p_per_payment, per_payee = p_per_payee,
		w_length = p_lengths, w_amount = p_amounts, w_count = p_counts,
		payee_caps = p_per_payee IS NOT NULL OR coalesce(array_length(p_payees, 1), 0) > 0
	WHERE id = p_budget;
	IF NOT p_payees_changed THEN
		RETURN;
	END IF;
	DELETE FROM x402_budget_payees WHERE budget_id = p_budget;
	UPDATE x402_budget_holds SET payee = CASE WHEN p_per_payee IS NOT NULL OR pay_to = ANY (p_payees) THEN pay_to END
	WHERE budget_id = p_budget;
	INSERT INTO x402_budget_payees (budget_id, payee, cap)
	SELECT p_budget, p, c FROM unnest(p_payees, p_caps) AS u (p, c);
	INSERT INTO x402_budget_payees AS a (budget_id, payee, used, refused)
	SELECT p_budget, payee, coalesce(sum(amount) FILTER (WHERE state <> 5), 0),
		coalesce(sum(amount) FILTER (WHERE state = 2 AND deadline IS NOT NULL), 0)
	FROM x402_budget_holds WHERE budget_id = p_budget AND payee IS NOT NULL GROUP BY payee
	ON CONFLICT (budget_id, payee) DO UPDATE SET used = excluded.used, refused = excluded.refused;
END $$;

-- x402_budget_sweep applies the reopening rules to the holds of the dead sessions of budget
-- p_budget: a reserved hold is released, a signed one is in doubt. A session is dead when no
-- backend holds its advisory lock (p_class, pid), or when a later session has the same pid
-- (the pid was given to a new backend, so the session's own backend is gone). A live
-- session is never swept. It returns the number of sessions swept.
CREATE FUNCTION x402_budget_sweep(p_budget bigint, p_class integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	b x402_budgets;
	h x402_budget_holds;
	dead bigint;
	swept integer := 0;
BEGIN
	SELECT * INTO STRICT b FROM x402_budgets WHERE id = p_budget FOR UPDATE;
	FOR dead IN
		WITH held AS (
			SELECT l.objid::bigint AS pid FROM pg_locks l
			WHERE l.locktype = 'advisory' AND l.granted AND l.classid = p_class::oid AND l.objsubid = 2
				AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
		SELECT s.id FROM x402_budget_sessions s
		WHERE s.budget_id = p_budget
			AND (s.pid NOT IN (SELECT pid FROM held)
				OR EXISTS (SELECT 1 FROM x402_budget_sessions t WHERE t.pid = s.pid AND t.id > s.id))
	LOOP
		FOR h IN SELECT * FROM x402_budget_holds
			WHERE budget_id = p_budget AND session_id = dead AND state IN (0, 1) FOR UPDATE
		LOOP
			IF h.state = 0 THEN
				b := x402_budget_release(b, h);
			ELSE
				UPDATE x402_budget_holds SET state = 3 WHERE budget_id = p_budget AND hold = h.hold;
			END IF;
		END LOOP;
		DELETE FROM x402_budget_sessions WHERE id = dead;
		swept := swept + 1;
	END LOOP;
	PERFORM x402_budget_save(b);
	RETURN swept;
END $$;
