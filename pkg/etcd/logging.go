package etcd

import (
	"sync/atomic"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
)

// klogCore routes etcd's zap logs to klog. etcd logs dozens of lines per
// start at info level, so info goes to V(4) and warnings to V(2); errors are
// errors, except while closing, when etcd reports normal shutdown as errors.
type klogCore struct {
	fields  []zapcore.Field
	closing atomic.Bool
	parent  *klogCore
}

var _ zapcore.Core = (*klogCore)(nil)

func (c *klogCore) logger() *zap.Logger { return zap.New(c) }

func (c *klogCore) root() *klogCore {
	for c.parent != nil {
		c = c.parent
	}
	return c
}

func (c *klogCore) Enabled(l zapcore.Level) bool {
	switch {
	case l >= zapcore.ErrorLevel:
		return true
	case l >= zapcore.WarnLevel:
		return klog.V(2).Enabled()
	default:
		return klog.V(4).Enabled()
	}
}

func (c *klogCore) With(fields []zapcore.Field) zapcore.Core {
	return &klogCore{fields: append(append([]zapcore.Field(nil), c.fields...), fields...), parent: c.root()}
}

func (c *klogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *klogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fields {
		f.AddTo(enc)
	}
	kv := make([]any, 0, 2*len(enc.Fields)+2)
	kv = append(kv, "component", "etcd")
	for k, v := range enc.Fields {
		kv = append(kv, k, v)
	}
	quiet := c.root().closing.Load() || benign(e.Message)
	switch {
	case e.Level >= zapcore.ErrorLevel && !quiet:
		klog.ErrorSDepth(1, nil, e.Message, kv...)
	case e.Level >= zapcore.WarnLevel && !quiet:
		klog.V(2).InfoSDepth(1, e.Message, kv...)
	default:
		klog.V(4).InfoSDepth(1, e.Message, kv...)
	}
	return nil
}

func (c *klogCore) Sync() error { return nil }

// benign reports messages etcd logs as errors in normal operation: a fresh
// member cannot read a storage version it has not written yet.
func benign(msg string) bool {
	return msg == "failed to update storage version"
}
