package cluster

import (
	"bufio"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// proxy is a TCP proxy between NATS clients and a NATS server, for fault
// tests. It forwards bytes both ways and can:
//
//   - blackhole a direction: bytes stop flowing but every socket stays
//     open, as in a network partition shorter than TCP's timeouts. Held
//     bytes are delivered, in order, when the direction heals, which is
//     what TCP retransmission does after such a partition;
//   - reset: close every connection at once (bytes held are dropped);
//     clients reconnect to the proxy, which dials the current target.
//
// The target can change (a restarted server on a new port).
type proxy struct {
	ln   net.Listener
	done chan struct{}
	wg   sync.WaitGroup

	mu     sync.Mutex
	target string
	up     chan struct{} // client to server: closed while the direction flows
	down   chan struct{} // server to client
	conns  map[net.Conn]struct{}
	closed bool
}

// newProxy listens on loopback at a random port and forwards to target
// (host:port); the test's cleanup closes it.
func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, done: make(chan struct{}), target: target,
		up: flowing(), down: flowing(), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func flowing() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// url is the address clients dial instead of the server's.
func (p *proxy) url() string { return "nats://" + p.ln.Addr().String() }

// setTarget points new connections at another server address.
func (p *proxy) setTarget(target string) {
	p.mu.Lock()
	p.target = target
	p.mu.Unlock()
}

// blackhole stops the chosen directions (up: client to server).
func (p *proxy) blackhole(up, down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if up && isOpen(p.up) {
		p.up = make(chan struct{})
	}
	if down && isOpen(p.down) {
		p.down = make(chan struct{})
	}
}

// loseAnswers lets the held outgoing bytes through and holds the incoming
// ones: requests reach the servers, their answers do not come back.
func (p *proxy) loseAnswers() {
	p.blackhole(false, true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !isOpen(p.up) {
		close(p.up)
	}
}

// heal lets both directions flow again; held bytes go first.
func (p *proxy) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !isOpen(p.up) {
		close(p.up)
	}
	if !isOpen(p.down) {
		close(p.down)
	}
}

func isOpen(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// reset closes every connection; the bytes they held are lost.
func (p *proxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	close(p.done)
	p.ln.Close()
	p.reset()
	p.wg.Wait()
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		target := p.target
		p.mu.Unlock()
		s, err := net.DialTimeout("tcp", target, 2*time.Second)
		if err != nil {
			c.Close() // no server: the client retries
			continue
		}
		if !p.track(c, s) {
			c.Close()
			s.Close()
			return
		}
		p.wg.Add(2)
		go p.pipe(c, s, func() chan struct{} { return p.gate(true) })
		go p.pipe(s, c, func() chan struct{} { return p.gate(false) })
	}
}

func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *proxy) gate(up bool) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if up {
		return p.up
	}
	return p.down
}

// pipe copies src to dst, waiting at the gate before each write. When
// either side fails, both are closed: a reset of one is a reset of the pair.
func (p *proxy) pipe(src, dst net.Conn, gate func() chan struct{}) {
	defer p.wg.Done()
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.pass(gate, dst, buf[:n]) {
			return
		}
		if err != nil {
			return
		}
	}
}

// pass waits until the direction flows, then writes b. It gives up when
// the proxy closes or the pair is reset while waiting.
func (p *proxy) pass(gate func() chan struct{}, dst net.Conn, b []byte) bool {
	for {
		g := gate()
		select {
		case <-p.done:
			return false
		case <-g:
			_, err := dst.Write(b)
			return err == nil
		case <-time.After(10 * time.Millisecond):
			if !p.tracked(dst) {
				return false // reset while held: the bytes are dropped
			}
		}
	}
}

func (p *proxy) tracked(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.conns[c]
	return ok
}

// TestProxy checks the proxy itself: bytes flow both ways, a blackholed
// direction holds them (the other still flows) and delivers them in order
// on heal, and a reset closes the connection.
func TestProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // an echo server, one connection
		c, err := ln.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	p := newProxy(t, ln.Addr().String())
	c, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	// A line that must come gets seconds (a loaded machine may take a
	// while to pass it through three goroutines); the blackholed one,
	// which must not come, 300 ms.
	line := func(within time.Duration) (string, error) {
		c.SetReadDeadline(time.Now().Add(within))
		return r.ReadString('\n')
	}
	c.Write([]byte("one\n"))
	if s, err := line(10 * time.Second); s != "one\n" {
		t.Fatalf("echo through the proxy: %q %v", s, err)
	}
	p.blackhole(true, false)
	c.Write([]byte("two\n"))
	c.Write([]byte("three\n"))
	if s, err := line(300 * time.Millisecond); err == nil {
		t.Fatalf("blackholed: read %q, want a timeout", s)
	}
	p.heal()
	for _, want := range []string{"two\n", "three\n"} {
		if s, err := line(10 * time.Second); s != want {
			t.Fatalf("after heal: %q %v, want %q", s, err, want)
		}
	}
	p.reset()
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := r.ReadString('\n'); err != io.EOF {
		t.Fatalf("after reset: %v, want EOF", err)
	}
}
