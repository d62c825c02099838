package pkg

type Option func(*options)

type options struct{}

type Config struct {
	A, B string
	c    int
	D    int
}

type hidden struct{}

func (hidden) Exported() {}

func (c *Config) Get() string { return c.A }

func WithA() Option { return nil }

func New(...Option) *Config { return nil }

func unexported() {}

var V, w = 1, 2

const K = 1
