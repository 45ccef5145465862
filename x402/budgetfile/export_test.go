package budgetfile

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
)

// Fill writes n outstanding holds of 1000 into a new budget file at path, as the
// benchmarks make them through the store's methods in memory, but in one transaction: hold
// i (its id 8 zero bytes then i+1 in big-endian), reserved at now to payee 0x%04x (i mod
// 1000) and signed as 0x%08x (i) expiring i seconds after an hour past now, is in doubt when
// i is even and refused when it is odd.
func Fill(path string, n int, now time.Time) error {
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.conn.ExecContext(ctx, `BEGIN`); err != nil {
		return err
	}
	for i := range n {
		state := 3 - i%2 // in doubt, refused
		expires := now.Add(time.Hour + time.Duration(i)*time.Second).UnixNano()
		hold := binary.BigEndian.AppendUint64(make([]byte, 8), uint64(i+1))
		if _, err := s.conn.ExecContext(ctx, `INSERT INTO holds (hold, amount, pay_to, rail, resource, payer, asset, reserved_at, signing_id, expires, ref, state)
			VALUES (?, '1000', ?, '', '', '', '', ?, ?, ?, '', ?)`,
			hold, fmt.Sprintf("0x%04x", i%1000), now.UnixNano(), fmt.Sprintf("0x%08x", i), expires, state); err != nil {
			return err
		}
	}
	_, err = s.conn.ExecContext(ctx, `COMMIT`)
	return err
}
