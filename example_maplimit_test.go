package steal_test

import (
	"fmt"
	"strings"

	"github.com/worksteal/steal"
)

func ExampleMapLimit() {
	p := steal.New()
	defer p.Close()
	names := []string{"a", "b", "c", "d", "e"}
	var sizes []int
	p.Run(func(w *steal.Worker) {
		// At most two fetches at once, however many workers and spares
		// the pool has.
		sizes = steal.MapLimit(w, 2, names, func(w *steal.Worker, name string) int {
			var body string
			w.Block(func() { body = strings.Repeat(name, 3) }) // a blocking fetch
			return len(body)
		})
	})
	fmt.Println(sizes)
	// Output: [3 3 3 3 3]
}

func ExampleMapErrLimit() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		_, err := steal.MapErrLimit(w, 2, []int{1, 2, 0, 4}, func(w *steal.Worker, x int) (int, error) {
			if x == 0 {
				return 0, fmt.Errorf("zero")
			}
			return 100 / x, nil
		})
		fmt.Println(err != nil)
	})
	// Output: true
}
