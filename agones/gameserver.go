package agones

import (
	"encoding/json"
	"strconv"
	"strings"
)

// GameServer is the SDK server's view of this game server (the JSON of
// GET /gameserver and of each watch event). Field names are the SDK's.
type GameServer struct {
	ObjectMeta ObjectMeta `json:"object_meta"`
	Spec       Spec       `json:"spec"`
	Status     Status     `json:"status"`
}

// ObjectMeta is the GameServer's Kubernetes metadata.
type ObjectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	UID               string            `json:"uid"`
	ResourceVersion   string            `json:"resource_version"`
	Generation        Int64             `json:"generation"`
	CreationTimestamp Int64             `json:"creation_timestamp"` // Unix seconds
	DeletionTimestamp Int64             `json:"deletion_timestamp"` // Unix seconds, 0 if not being deleted
	Annotations       map[string]string `json:"annotations"`
	Labels            map[string]string `json:"labels"`
}

// Spec is the part of the GameServer's spec the SDK reports.
type Spec struct {
	Health Health `json:"health"`
}

// Health is the GameServer's health checking: Agones marks the server
// Unhealthy after FailureThreshold periods of PeriodSeconds without a
// Health call, once InitialDelaySeconds have passed.
type Health struct {
	Disabled            bool  `json:"disabled"`
	PeriodSeconds       int32 `json:"period_seconds"`
	FailureThreshold    int32 `json:"failure_threshold"`
	InitialDelaySeconds int32 `json:"initial_delay_seconds"`
}

// Status is the GameServer's status.
type Status struct {
	State     State                    `json:"state"`
	Address   string                   `json:"address"`
	Addresses []Address                `json:"addresses"`
	Ports     []Port                   `json:"ports"`
	Players   *PlayerStatus            `json:"players,omitempty"` // alpha player tracking
	Counters  map[string]CounterStatus `json:"counters"`
	Lists     map[string]ListStatus    `json:"lists"`
}

// Address is one of the node's addresses.
type Address struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// Port is a port exposed to players.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// PlayerStatus is the alpha player tracking status.
type PlayerStatus struct {
	Count    Int64    `json:"count"`
	Capacity Int64    `json:"capacity"`
	IDs      []string `json:"ids"`
}

// CounterStatus is a Counter (beta Counters and Lists).
type CounterStatus struct {
	Count    Int64 `json:"count"`
	Capacity Int64 `json:"capacity"`
}

// ListStatus is a List (beta Counters and Lists).
type ListStatus struct {
	Capacity Int64    `json:"capacity"`
	Values   []string `json:"values"`
}

// List is the answer of the List calls.
type List struct {
	Name     string   `json:"name"`
	Capacity Int64    `json:"capacity"`
	Values   []string `json:"values"`
}

// State is a GameServer's state.
type State string

// The states a game server sees (the Kubernetes-side ones before Scheduled
// are left out).
const (
	StateScheduled    State = "Scheduled"
	StateRequestReady State = "RequestReady"
	StateReady        State = "Ready"
	StateAllocated    State = "Allocated"
	StateReserved     State = "Reserved"
	StateShutdown     State = "Shutdown"
	StateUnhealthy    State = "Unhealthy"
	StateError        State = "Error"
)

// SDKPrefix is the prefix the SDK server puts before the keys of labels and
// annotations set with SetLabel and SetAnnotation.
const SDKPrefix = "agones.dev/sdk-"

// SDKLabel returns the label set with SetLabel(key, ...), if any.
func (gs GameServer) SDKLabel(key string) (string, bool) {
	v, ok := gs.ObjectMeta.Labels[SDKPrefix+key]
	return v, ok
}

// SDKAnnotation returns the annotation set with SetAnnotation(key, ...), if
// any.
func (gs GameServer) SDKAnnotation(key string) (string, bool) {
	v, ok := gs.ObjectMeta.Annotations[SDKPrefix+key]
	return v, ok
}

// Int64 is an int64 that the SDK's JSON carries as a string ("12"); it
// reads a bare number too.
type Int64 int64

// MarshalJSON writes the value as a JSON string.
func (n Int64) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(n), 10)), nil
}

// UnmarshalJSON reads a JSON string or number.
func (n *Int64) UnmarshalJSON(p []byte) error {
	s := strings.TrimSpace(string(p))
	if s == "null" {
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(p, &s); err != nil {
			return err
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	*n = Int64(v)
	return nil
}
