package svgplot

import (
	"strings"
	"testing"
)

func TestRoundTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string // the labelled ticks
	}{
		{0, 61, "0 20 40 60"},
		{0, 2.4, "0 0.5 1 1.5 2"},
		{0, 0.061, "0 0.02 0.04 0.06"},
		{0, 1920, "0 500 1000 1500"},
		{0, 240.8, "0 50 100 150 200"},
		{0.2, 1.1, "0.2 0.4 0.6 0.8 1"},
		{5, 5, "5"},
	} {
		var got []string
		for _, tick := range RoundTicks(tc.lo, tc.hi) {
			if tick.Label != "" {
				got = append(got, tick.Label)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("RoundTicks(%v, %v) = %v, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
	// Any span: three to eight labels, none with a trailing zero after the
	// point, all inside the range.
	for hi := 1e-3; hi < 1e6; hi *= 1.37 {
		n := 0
		for _, tick := range RoundTicks(0, hi) {
			if tick.Value < 0 || tick.Value > hi*(1+1e-9) {
				t.Fatalf("RoundTicks(0, %v): tick %v outside", hi, tick.Value)
			}
			if tick.Label == "" {
				continue
			}
			n++
			if strings.Contains(tick.Label, ".") && strings.HasSuffix(tick.Label, "0") {
				t.Fatalf("RoundTicks(0, %v): label %q", hi, tick.Label)
			}
		}
		if n < 3 || n > 8 {
			t.Fatalf("RoundTicks(0, %v): %d labels", hi, n)
		}
	}
}

func TestProblems(t *testing.T) {
	const head = `<?xml version="1.0"?><svg width="100pt" height="50pt"><g>`
	text := func(x float64, s string) string {
		return `<text x="` + FormatTick(x, 2) + `" y="-10" style="font-size:10px">` + s + `</text>`
	}
	for _, tc := range []struct {
		body string
		want string // a problem it must report; "" for none
	}{
		{text(20, "fine") + text(40, "2.5"), ""},
		{text(0, "worker 0"), `label "worker 0" spans x 0.0`},
		{text(60, "a long label"), `label "a long label" spans x 60.0 to about 126.0`},
		{text(20, "0.50"), `tick label "0.50"`},
		{`<g transform="rotate(90)">` + text(300, "rotated") + `</g>` + text(20, "x"), ""},
		{``, "no text in the chart"},
	} {
		got, err := Problems([]byte(head + tc.body + `</g></svg>`))
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(got, "; ")
		if tc.want == "" && len(got) > 0 || !strings.Contains(joined, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.body, got, tc.want)
		}
	}
	if _, err := Problems([]byte(head + `<text>`)); err == nil {
		t.Error("malformed XML accepted")
	}
}
