package customresource

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/webhook"
)

// ConversionWebhooks is how the API server reaches conversion webhooks:
// a Service or URL resolved by Locator (webhook.Resolver), over the kept
// transports of Clients.
type ConversionWebhooks struct {
	Locator interface {
		Locate(ctx context.Context, cc webhook.ClientConfig) (webhook.Location, error)
	}
	Clients *webhook.Clients
}

// conversionTimeout bounds one call, as Kubernetes does.
const conversionTimeout = 30 * time.Second

// maxConversionResponse bounds what is read of a webhook's answer.
const maxConversionResponse = 64 << 20

// webhookConverter is the Webhook strategy: a ConversionReview v1 POSTed
// to the definition's webhook for every batch of objects not already in
// the wanted version.
type webhookConverter struct {
	hooks  *ConversionWebhooks
	client webhook.ClientConfig
}

var _ converter = (*webhookConverter)(nil)

// newConverter returns the converter of the definition's strategy.
func newConverter(c *apiextensionsv1.CustomResourceConversion, hooks *ConversionWebhooks) (converter, error) {
	if c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
		return noneConverter{}, nil
	}
	if hooks == nil {
		return nil, fmt.Errorf("conversion webhooks are not available in this server")
	}
	if c.Webhook == nil || c.Webhook.ClientConfig == nil {
		return nil, fmt.Errorf("conversion strategy Webhook without a webhook clientConfig")
	}
	if !slices.Contains(c.Webhook.ConversionReviewVersions, "v1") {
		return nil, fmt.Errorf("the conversion webhook speaks none of the ConversionReview versions this server sends (v1)")
	}
	cc := c.Webhook.ClientConfig
	var ref *webhook.ServiceReference
	if s := cc.Service; s != nil {
		ref = webhook.NewServiceReference(s.Namespace, s.Name, s.Path, s.Port)
	}
	return &webhookConverter{hooks: hooks, client: webhook.NewClientConfig(cc.URL, cc.CABundle, ref)}, nil
}

func (w *webhookConverter) convert(ctx context.Context, objs []runtime.Object, version string) error {
	var (
		idx  []int
		ins  []*unstructured.Unstructured
		raws []runtime.RawExtension
	)
	for i, obj := range objs {
		if obj == nil {
			continue
		}
		u, ok := storage.Unwrap(obj).(*unstructured.Unstructured)
		if !ok || u.GetAPIVersion() == version {
			continue
		}
		raw, err := json.Marshal(u)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("encode %s for conversion: %w", u.GetName(), err))
		}
		idx, ins, raws = append(idx, i), append(ins, u), append(raws, runtime.RawExtension{Raw: raw})
	}
	if len(idx) == 0 {
		return nil
	}
	fail := func(err error) error {
		return apierrors.NewInternalError(fmt.Errorf("conversion webhook for %s failed: %w", ins[0].GroupVersionKind(), err))
	}
	converted, err := w.call(ctx, raws, version)
	if err != nil {
		return fail(err)
	}
	for j, i := range idx {
		out, err := checkConverted(ins[j], converted[j], version)
		if err != nil {
			return fail(fmt.Errorf("invalid converted object at index %d: %w", j, err))
		}
		objs[i] = out
	}
	return nil
}

// checkConverted decodes one converted object and checks it is the input
// in the wanted version: same kind, and metadata kept (only labels and
// annotations may change, as Kubernetes allows).
func checkConverted(in *unstructured.Unstructured, raw runtime.RawExtension, version string) (*unstructured.Unstructured, error) {
	out := &unstructured.Unstructured{}
	if err := json.Unmarshal(raw.Raw, out); err != nil || out.Object == nil {
		return nil, fmt.Errorf("decode: %v", err)
	}
	if got := out.GetAPIVersion(); got != version {
		return nil, fmt.Errorf("invalid apiVersion %q, expected %q", got, version)
	}
	if got := out.GetKind(); got != in.GetKind() {
		return nil, fmt.Errorf("invalid kind %q, expected %q", got, in.GetKind())
	}
	meta := map[string]any{}
	if m, ok := in.Object["metadata"].(map[string]any); ok && m != nil {
		meta, _ = runtime.DeepCopyJSONValue(m).(map[string]any)
	}
	if outMeta, ok := out.Object["metadata"].(map[string]any); ok {
		for _, k := range []string{"labels", "annotations"} {
			if v, ok := outMeta[k]; ok {
				meta[k] = v
			} else {
				delete(meta, k)
			}
		}
	}
	out.Object["metadata"] = meta
	return out, nil
}

// call POSTs one ConversionReview and returns the converted objects.
func (w *webhookConverter) call(ctx context.Context, objs []runtime.RawExtension, version string) ([]runtime.RawExtension, error) {
	ctx, cancel := context.WithTimeout(ctx, conversionTimeout)
	defer cancel()
	loc, err := w.hooks.Locator.Locate(ctx, w.client)
	if err != nil {
		return nil, err
	}
	rt, err := w.hooks.Clients.Transport(loc)
	if err != nil {
		return nil, err
	}
	uid := types.UID(uuid.NewString())
	body, err := json.Marshal(&apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "ConversionReview"},
		Request:  &apiextensionsv1.ConversionRequest{UID: uid, DesiredAPIVersion: version, Objects: objs},
	})
	if err != nil {
		return nil, err
	}
	u := *loc.URL
	q := u.Query()
	q.Set("timeout", conversionTimeout.String())
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxConversionResponse+1))
	if err != nil {
		return nil, fmt.Errorf("read the response: %w", err)
	}
	if len(data) > maxConversionResponse {
		return nil, fmt.Errorf("the response is larger than %d bytes", maxConversionResponse)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("the server responded with status code %d", resp.StatusCode)
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("decode the response: %w", err)
	}
	r := review.Response
	switch {
	case r == nil:
		return nil, fmt.Errorf("no response provided")
	case r.UID != uid:
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	case r.Result.Status != metav1.StatusSuccess:
		msg := r.Result.Message
		if msg == "" {
			msg = fmt.Sprintf("result status %q", r.Result.Status)
		}
		return nil, fmt.Errorf("%s", msg)
	case len(r.ConvertedObjects) != len(objs):
		return nil, fmt.Errorf("expected %d converted objects, got %d", len(objs), len(r.ConvertedObjects))
	}
	return r.ConvertedObjects, nil
}
