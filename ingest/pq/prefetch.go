package pq

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// prefetchDepth is how many decoded pages a prefetcher may hold ahead of
// its reader.
const prefetchDepth = 2

// prefetcher reads (fetches, decompresses and decodes) the pages of a
// column chunk in a goroutine of its own, ahead of the reader: for the
// request and response columns, decompression is most of the work, and this
// overlaps it with the checks the reader makes on the previous page. A
// decoder panic in the goroutine becomes the error of its page. It holds
// at most prefetchDepth pages.
type prefetcher struct {
	pages parquet.Pages
	ch    chan fetched
	stop  chan struct{}
	done  chan struct{}
	// panicked is the error of a page whose decoder panicked with r.
	panicked func(r any) error
}

type fetched struct {
	page parquet.Page
	err  error
}

// newPrefetcher starts reading pages ahead; a page whose decoder panics
// with r fails with panicked(r), worded as its reader words such a page.
func newPrefetcher(pages parquet.Pages, panicked func(r any) error) *prefetcher {
	p := &prefetcher{
		pages:    pages,
		ch:       make(chan fetched, prefetchDepth),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		panicked: panicked,
	}
	go p.run()
	return p
}

func (p *prefetcher) run() {
	defer close(p.done)
	defer close(p.ch)
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		f := p.read()
		select {
		case p.ch <- f:
		case <-p.stop:
			if f.page != nil {
				parquet.Release(f.page)
			}
			return
		}
		if f.err != nil { // io.EOF included
			return
		}
	}
}

func (p *prefetcher) read() (f fetched) {
	defer func() {
		if r := recover(); r != nil {
			f = fetched{err: p.panicked(r)}
		}
	}()
	f.page, f.err = p.pages.ReadPage()
	return f
}

// ReadPage returns the next page, io.EOF after the last.
func (p *prefetcher) ReadPage() (parquet.Page, error) {
	f, ok := <-p.ch
	if !ok {
		return nil, io.EOF
	}
	return f.page, f.err
}

// SeekToRow is not supported: cursors only read forward.
func (p *prefetcher) SeekToRow(int64) error { return fmt.Errorf("prefetcher: seek not supported") }

// Close stops the goroutine, releases the pages it read ahead and closes
// the underlying pages.
func (p *prefetcher) Close() error {
	select {
	case <-p.stop:
		return nil // closed already
	default:
	}
	close(p.stop)
	<-p.done
	for f := range p.ch {
		if f.page != nil {
			parquet.Release(f.page)
		}
	}
	return p.pages.Close()
}
