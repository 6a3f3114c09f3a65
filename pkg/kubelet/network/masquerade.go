package network

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// masqueradeTable is the nftables table of the masquerade rule.
var masqueradeTable = nftables.Table{Family: nftables.TableFamilyIPv4, Name: TableName}

// writeMasquerade (re)writes, in one transaction, the table TableName
// with a nat postrouting chain holding one rule: packets from the cluster
// CIDR to outside it leave with the node's address.
//
//	table ip kubecore-podnet {
//		chain postrouting {
//			type nat hook postrouting priority srcnat;
//			ip saddr <cluster> ip daddr != <cluster> masquerade
//		}
//	}
func writeMasquerade(cluster netip.Prefix) error {
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	// Delete and add in one batch: the rules are exactly these after a
	// restart, whatever an earlier kubelet left.
	if tables, err := c.ListTablesOfFamily(nftables.TableFamilyIPv4); err == nil {
		for _, t := range tables {
			if t.Name == TableName {
				c.DelTable(&masqueradeTable)
			}
		}
	}
	t := c.AddTable(&masqueradeTable)
	ch := c.AddChain(&nftables.Chain{
		Name: "postrouting", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookPostrouting, Priority: nftables.ChainPriorityNATSource,
	})
	c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: masqueradeExprs(cluster)})
	if err := c.Flush(); err != nil {
		return fmt.Errorf("write the nftables table %s: %w", TableName, err)
	}
	return nil
}

// masqueradeExprs is "ip saddr cluster ip daddr != cluster masquerade".
func masqueradeExprs(cluster netip.Prefix) []expr.Any {
	cluster = cluster.Masked()
	network := cluster.Addr().As4()
	mask := lastAddr(netip.PrefixFrom(netip.AddrFrom4([4]byte{}), cluster.Bits())).As4()
	for i := range mask {
		mask[i] = ^mask[i]
	}
	match := func(offset uint32, op expr.CmpOp) []expr.Any {
		return []expr.Any{
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: offset, Len: 4},
			&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: mask[:], Xor: make([]byte, 4)},
			&expr.Cmp{Op: op, Register: 1, Data: network[:]},
		}
	}
	// Offsets of the source and destination addresses in the IPv4 header.
	exprs := append(match(12, expr.CmpOpEq), match(16, expr.CmpOpNeq)...)
	return append(exprs, &expr.Masq{})
}

// deleteMasquerade removes the table, if there is one.
func deleteMasquerade() error {
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	c.DelTable(&masqueradeTable)
	if err := c.Flush(); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("delete the nftables table %s: %w", TableName, err)
	}
	return nil
}

// masqueradeRules lists the expressions of the table's rules, for tests.
func masqueradeRules() ([][]expr.Any, error) {
	c, err := nftables.New()
	if err != nil {
		return nil, err
	}
	rules, err := c.GetRules(&masqueradeTable, &nftables.Chain{Name: "postrouting", Table: &masqueradeTable})
	if err != nil {
		return nil, err
	}
	var out [][]expr.Any
	for _, r := range rules {
		out = append(out, r.Exprs)
	}
	return out, nil
}
