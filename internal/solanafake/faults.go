package solanafake

import "maps"

// Fault is an error the node answers instead of running a JSON-RPC method, injected with
// InjectFaults: an embedding fake's way to make one method fail (a transport failure, a
// delay or an HTTP status is the job of the HTTP server in front of the node).
type Fault struct {
	// Method is the JSON-RPC method it applies to; empty matches any.
	Method string
	// Error is the answer. An Err makes it a preflight failure with data {err, logs}.
	Error Error
	// Times is how many matching calls get it; 0 means one.
	Times int
}

// pendingFault is an injected fault and how many more calls it applies to.
type pendingFault struct {
	Fault
	left int
}

// InjectFaults makes the next calls of each fault's method answer its error, in the order
// given: each call takes the first pending fault that matches it. A faulted call is counted
// in Calls and changes nothing.
func (c *Cluster) InjectFaults(faults ...Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range faults {
		f.Error.Logs = append([]string(nil), f.Error.Logs...)
		c.faults = append(c.faults, &pendingFault{Fault: f, left: max(f.Times, 1)})
	}
}

// takeFault returns the error of the first pending fault for method and uses it up, or nil;
// the caller holds the lock.
func (c *Cluster) takeFault(method string) *Error {
	for i, f := range c.faults {
		if f.Method != "" && f.Method != method {
			continue
		}
		f.left--
		if f.left == 0 {
			c.faults = append(c.faults[:i], c.faults[i+1:]...)
		}
		e := f.Error
		return &e
	}
	return nil
}

// Calls returns how many times each JSON-RPC method was called, unknown and faulted ones
// included.
func (c *Cluster) Calls() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls)
}
