package simhash_test

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze/simhash"
)

func ExampleNormalize() {
	prompt := "Order #12345 shipped at 2024-01-15T10:30:00Z\r\n\r\n  (id 550E8400-E29B-41D4-A716-446655440000)"
	fmt.Printf("%s\n", simhash.Normalize(nil, []byte(prompt)))
	// Output: order #<NUM> shipped at <TS> (id <ID>)
}

func ExampleHash() {
	a, _ := simhash.Hash([]byte("Order #12345 shipped at 2024-01-15T10:30:00Z"))
	b, _ := simhash.Hash([]byte("ORDER #678 shipped at 2025-02-01 08:00"))
	c, _ := simhash.Hash([]byte("Please summarize the attached report in three bullet points."))
	fmt.Println("numbers only:", simhash.Distance(a, b))
	fmt.Println("different text, more than 5 bits:", simhash.Distance(a, c) > 5)
	_, ok := simhash.Hash([]byte(" \r\n\t "))
	fmt.Println("white space has a hash:", ok)
	// Output:
	// numbers only: 0
	// different text, more than 5 bits: true
	// white space has a hash: false
}
