package printers

import (
	"fmt"
	"strconv"
	"strings"

	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func endpointSliceColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("AddressType", "string", "Kind of the slice's addresses: IPv4, IPv6 or FQDN."),
		column("Ports", "string", "The ports every endpoint of the slice serves, at most three shown."),
		column("Endpoints", "string", "The endpoints' addresses, at most three shown."),
		ageColumn(),
	}
}

func printEndpointSlice(c *printContext, s *discoveryv1.EndpointSlice) (row, error) {
	var ports, addrs shortList
	for _, p := range s.Ports {
		switch {
		case p.Port != nil:
			ports.add(strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports.add(*p.Name)
		default:
			ports.add("*")
		}
	}
	for _, ep := range s.Endpoints {
		for _, a := range ep.Addresses {
			addrs.add(a)
		}
	}
	return row{cells: []any{s.Name, string(s.AddressType), orUnset(ports.String()), orUnset(addrs.String()), c.age(s.CreationTimestamp)}}, nil
}

func orUnset(s string) string {
	if s == "" {
		return "<unset>"
	}
	return s
}

// shortList is a cell listing at most three items and counting the rest:
// "a,b,c + 2 more...".
type shortList struct {
	shown []string
	count int
}

func (l *shortList) add(s string) {
	l.count++
	if len(l.shown) < 3 {
		l.shown = append(l.shown, s)
	}
}

func (l *shortList) String() string {
	out := strings.Join(l.shown, ",")
	if l.count > len(l.shown) {
		out = fmt.Sprintf("%s + %d more...", out, l.count-len(l.shown))
	}
	return out
}
