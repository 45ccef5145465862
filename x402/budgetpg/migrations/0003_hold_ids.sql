-- Version 3: caller-made hold ids, the server's clock, payees compared exactly, limits
-- changed on purpose. The functions of version 2 go (0004 makes those of version 3); every
-- hold, sum and window stays.
DROP FUNCTION x402_budget_sweep(bigint, integer);
DROP FUNCTION x402_budget_hold_state(bigint, bigint, bigint);
DROP FUNCTION x402_budget_outstanding(bigint, bigint);
DROP FUNCTION x402_budget_totals(bigint, bigint);
DROP FUNCTION x402_budget_resolve(bigint, text, boolean, bigint);
DROP FUNCTION x402_budget_discard(bigint, bigint, bigint);
DROP FUNCTION x402_budget_mark(bigint, bigint, smallint, bigint);
DROP FUNCTION x402_budget_sign(bigint, bigint, text, bigint, bigint, text, bigint);
DROP FUNCTION x402_budget_reserve(bigint, bigint, numeric, text, text, text, text, text, text, bigint);
DROP FUNCTION x402_budget_advance(x402_budgets, bigint);
DROP FUNCTION x402_budget_touch(bigint, bigint);
DROP FUNCTION x402_budget_lock(bigint, bigint);
DROP FUNCTION x402_budget_expire(x402_budgets, bigint);
DROP FUNCTION x402_budget_commit(x402_budgets, x402_budget_holds);
DROP FUNCTION x402_budget_release(x402_budgets, x402_budget_holds);
DROP FUNCTION x402_budget_unrefuse(x402_budgets, x402_budget_holds);
DROP FUNCTION x402_budget_save(x402_budgets);

-- A hold's id is now the caller's HoldID (hold, 16 bytes), the primary key with the budget:
-- the hold of an earlier release gets 8 zero bytes, then its old id in big-endian. The old
-- id stays as seq, the order of reservations (a window's ties, the listing's order of
-- unsigned holds), which the budget's last_seq gives under its lock. (A budget's lookups of a
-- hold have one index to take, whatever plan stale statistics suggest.)
ALTER TABLE x402_budget_holds RENAME COLUMN id TO seq;
ALTER TABLE x402_budget_holds ADD COLUMN hold bytea;
UPDATE x402_budget_holds SET hold = '\x0000000000000000'::bytea || int8send(seq);
ALTER TABLE x402_budget_holds ALTER COLUMN hold SET NOT NULL,
	ADD CONSTRAINT x402_budget_holds_hold_length CHECK (length(hold) = 16),
	DROP CONSTRAINT x402_budget_holds_pkey,
	ADD PRIMARY KEY (budget_id, hold);
-- Reservation times are the server's clock's readings, in any order: the windows walk the
-- holds they count by time.
CREATE INDEX x402_budget_holds_reserved ON x402_budget_holds (budget_id, reserved_at, seq) WHERE state <> 5;

-- Payees are compared exactly. An EVM address of an earlier release (0x and 40 hexadecimal
-- digits, in any case) is written in lower case, the form the caller now gives; any other
-- payee stays as it is. payee, the account a hold counts in, becomes its pay_to.
UPDATE x402_budget_holds SET pay_to = lower(pay_to) WHERE pay_to ~ '^0[xX][0-9a-fA-F]{40}$' AND pay_to <> lower(pay_to);
-- A named payee limit of an earlier release was in lower case; when it is not an EVM
-- address and the holds to it have one exact form, it names that form now.
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN
		SELECT p.budget_id, p.payee AS old, min(h.pay_to) AS exact
		FROM x402_budget_payees p JOIN x402_budget_holds h ON h.budget_id = p.budget_id AND lower(h.pay_to) = p.payee
		WHERE p.cap IS NOT NULL AND p.payee !~ '^0x[0-9a-f]{40}$'
		GROUP BY p.budget_id, p.payee
		HAVING count(DISTINCT h.pay_to) = 1 AND min(h.pay_to) <> p.payee
	LOOP
		UPDATE x402_budget_payees SET payee = r.exact WHERE budget_id = r.budget_id AND payee = r.old;
		UPDATE x402_budgets
		SET limits = jsonb_set(limits::jsonb #- ARRAY['payees', r.old], ARRAY['payees', r.exact], limits::jsonb -> 'payees' -> r.old)::text
		WHERE id = r.budget_id;
	END LOOP;
END $$;
UPDATE x402_budget_holds SET payee = pay_to WHERE payee IS NOT NULL;
-- The payees' accounts again, by payee exactly: a named payee keeps its limit.
DELETE FROM x402_budget_payees WHERE cap IS NULL;
UPDATE x402_budget_payees SET used = 0, refused = 0;
INSERT INTO x402_budget_payees AS p (budget_id, payee, used, refused)
SELECT budget_id, payee, coalesce(sum(amount) FILTER (WHERE state <> 5), 0),
	coalesce(sum(amount) FILTER (WHERE state = 2 AND deadline IS NOT NULL), 0)
FROM x402_budget_holds WHERE payee IS NOT NULL GROUP BY budget_id, payee
ON CONFLICT (budget_id, payee) DO UPDATE SET used = excluded.used, refused = excluded.refused;

-- No time is kept as a floor: the latest reservation time goes, and a window's holds are
-- found by time, not from a tail of ids. The windows' marks and sums stay: they count the
-- holds reserved after mark - length and not released, as they did.
ALTER TABLE x402_budgets DROP COLUMN last_at, DROP COLUMN w_tail;
ALTER TABLE x402_budgets RENAME COLUMN last_hold TO last_seq;
