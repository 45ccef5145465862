// Package conncount starts httptest servers that count the TCP connections they accept, so
// that the fakes and the benchmarks can show how a client reuses its connections.
package conncount

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// Server is a started httptest.Server that counts the TCP connections it accepts.
type Server struct {
	*httptest.Server
	conns atomic.Int64
}

// Start starts a server of h that counts its connections.
func Start(h http.Handler) *Server {
	s := &Server{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	return s
}

// Connections returns the number of TCP connections the server has accepted.
func (s *Server) Connections() int64 { return s.conns.Load() }
