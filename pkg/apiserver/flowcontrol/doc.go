// Package flowcontrol is the API server's priority and fairness: it
// classifies each request by the FlowSchemas, then gives it a seat of its
// priority level at once, queues it fairly among the level's flows, or
// sheds it with 429.
//
// The design, as simple as it can be while keeping Kubernetes' behaviour:
//
//   - Seats. The server's seats (--max-requests-inflight plus
//     --max-mutating-requests-inflight, summed as Kubernetes does) are
//     shared among the levels by their nominalConcurrencyShares: a level
//     gets ceil(seats × shares / Σ shares) (the exempt level's shares join
//     the sum). Every request takes one seat (no width estimation).
//   - Lending. lendablePercent of a level's nominal seats go into one pool
//     shared by every level; the rest is the level's own. A level serves
//     from its own seats first, then borrows from the pool, at most its
//     lendable seats plus borrowingLimitPercent of its nominal ones (no
//     limit when unset). A borrowed seat comes back when its request
//     ends; it is not reclaimed earlier. So a level with lendablePercent 0
//     (leader-election, exempt, catch-all) always has all its seats.
//   - Queues. A Limited level with limitResponse Queue deals each flow
//     (FlowSchema name + distinguisher: the user for ByUser, the namespace
//     for ByNamespace) a hand of handSize of its queues by shuffle
//     sharding on the flow's hash; the request joins the shortest queue of
//     the hand, or is rejected (queue-full) when that one holds
//     queueLengthLimit. Free seats go to the queues' heads in round-robin
//     order over the non-empty queues: each flow (queue) gets the same
//     number of dispatches, whatever its backlog; not Kubernetes'
//     virtual-time fair queuing, which also weighs how long each request
//     ran.
//   - Shedding. A queued request that waits longer than the queue wait
//     limit (a quarter of the request timeout, as Kubernetes) or whose
//     client goes away leaves its queue: 429 with Retry-After. A Reject
//     level answers 429 at once when it has no free seat.
//   - Exempt levels are never queued nor limited; long-running requests
//     (watches, exec, attach, logs, port-forward, proxy) are classified
//     but take no seat: Kubernetes holds a seat only for a watch's initial
//     events, which our watch cache serves from memory.
//   - Configuration follows the objects: Configure is given every
//     FlowSchema and PriorityLevelConfiguration after each change (the
//     control plane feeds it from an informer); levels keep their queued
//     requests across changes. FlowSchemas whose level does not exist
//     (Dangling) are skipped when classifying.
package flowcontrol
