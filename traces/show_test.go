package traces

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const sampleFile = `{"trace_id":"aa","span_id":"01","name":"portals/put","start_ps":1000,"end_ps":1000,"attrs":{"message.id":"7","size_bytes":8}}
{"trace_id":"aa","span_id":"02","parent_span_id":"01","name":"ppc/tx","start_ps":3000,"end_ps":5000,"actor":"node[0,0,0].ppc"}
{"trace_id":"aa","span_id":"03","parent_span_id":"01","name":"host/send","start_ps":1000,"end_ps":3000,"actor":"node[0,0,0].host"}
{"trace_id":"bb","span_id":"04","name":"portals/ack","start_ps":0,"end_ps":0,"attrs":{"message.id":"8"}}
`

func TestReadFileGroupsStagesUnderTheirMessage(t *testing.T) {
	msgs, err := ReadFile(strings.NewReader(sampleFile))
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, "7", msgs[0].ID())
	require.Equal(t, []string{"host/send", "ppc/tx"}, []string{msgs[0].Stages[0].Name, msgs[0].Stages[1].Name}, "stages in start order")
	require.Equal(t, int64(4000), msgs[0].Duration())

	var b strings.Builder
	require.NoError(t, Waterfall(&b, msgs[0], 10))
	out := b.String()
	require.Contains(t, out, "portals/put  message 7  4.000 ns")
	require.Contains(t, out, "|#####     |", "host/send: the first half of the message's life")
	require.Contains(t, out, "|     #####|", "ppc/tx: the second half")

	_, err = ReadFile(strings.NewReader("{\"trace_id\":\"aa\"}\nnot json\n"))
	require.ErrorContains(t, err, "line 1")
}

func TestTimeScaleStretchesExportedTimes(t *testing.T) {
	s := &otlpSink{scale: 1000}
	require.Equal(t, int64(25_000), s.wall(25_000).Sub(s.epoch).Nanoseconds(), "25 ns simulated: 25 us exported")
	s.scale = 1
	require.Equal(t, int64(25), s.wall(25_000).Sub(s.epoch).Nanoseconds())
}
