package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentapis/sdk/x402/ledger"
)

// recordedLimits returns the limits the file recorded, or nil when it has none yet.
func recordedLimits(ctx context.Context, conn *sql.Conn) (*ledger.Limits, error) {
	var text string
	switch err := conn.QueryRowContext(ctx, `SELECT limits FROM budget`).Scan(&text); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var l ledger.Limits
	if err := l.UnmarshalJSON([]byte(text)); err != nil {
		return nil, fmt.Errorf("the recorded limits are unreadable: %w", err)
	}
	return &l, nil
}

// recordLimits records limits as the file's.
func recordLimits(ctx context.Context, conn *sql.Conn, limits ledger.Limits) error {
	text, err := limits.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO budget (id, limits) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET limits = excluded.limits`,
		string(text))
	return err
}
