package cmdutil

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
)

// ValidateRawURI checks a --raw URI as kubectl does: a path the server
// is asked for as it is.
func ValidateRawURI(raw string) error {
	if _, err := url.ParseRequestURI(raw); err != nil {
		return fmt.Errorf("--raw must be a valid URL path: %v", err)
	}
	return nil
}

// RawRequest sends verb to the --raw URI with body (nil for none) and
// copies what the server answers to out: the --raw of get and create. A
// server error comes back as its Status.
func RawRequest(ctx context.Context, f *Factory, verb, raw string, body []byte, out io.Writer) error {
	rc, err := f.RESTClient()
	if err != nil {
		return err
	}
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		return fmt.Errorf("--raw must be a valid URL path: %v", err)
	}
	req := rc.Verb(verb).AbsPath(u.Path)
	for k, vs := range u.Query() {
		for _, v := range vs {
			req.Param(k, v)
		}
	}
	if body != nil {
		req.Body(body)
	}
	stream, err := req.Stream(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = stream.Close() }()
	_, err = io.Copy(out, stream)
	return err
}

// ReadRawBody reads the one manifest of --raw: a file, or stdin for "-".
func ReadRawBody(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(stdin); err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return buf.Bytes(), nil
	}
	return os.ReadFile(name)
}
