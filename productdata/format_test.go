package productdata_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/productdata"
)

// TestResultsPrintValuesNotAddresses holds that a decoded product, its request units and the
// client's request units print their numbers with %v and %+v, where fmt alone printed addresses
// ("Left:0x13b55cf32c18").
func TestResultsPrintValuesNotAddresses(t *testing.T) {
	t.Parallel()
	srv, c := startFake(t, nil)
	p, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)
	require.NotNil(t, p.Ratings)
	require.NotNil(t, p.RatingsCount)
	require.NotEmpty(t, p.PriceTrend)
	require.NotNil(t, p.PriceTrend[0].Value)
	text := fmt.Sprintf("%+v", p)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, fmt.Sprintf(" Ratings:%v RatingsCount:%d ", *p.Ratings, *p.RatingsCount))
	assert.Contains(t, text, fmt.Sprintf(" PriceTrend:[{Date:%s Value:%v} ", p.PriceTrend[0].Date, *p.PriceTrend[0].Value))
	assert.Contains(t, text, fmt.Sprintf(" Units:{Left:%d Consumed:1} ", srv.RequestLeft()))

	counters := fmt.Sprintf("%+v", c.RequestUnits())
	assert.Equal(t, fmt.Sprintf("{Sent:1 Consumed:1 Left:%d}", srv.RequestLeft()), counters)
	assert.Equal(t, fmt.Sprintf("{1 1 %d}", srv.RequestLeft()), fmt.Sprintf("%v", c.RequestUnits()))
}

// TestTaskStatusPrintsItsName holds that a task's state prints as its constant's name, where
// fmt alone printed a bare number ("Status:0").
func TestTaskStatusPrintsItsName(t *testing.T) {
	t.Parallel()
	state := struct {
		ASIN   string
		Status productdata.TaskStatus
		Polls  int
	}{"B0CVM8TXHP", productdata.TaskPending, 2}
	assert.Contains(t, fmt.Sprintf("%+v", state), " Status:TaskPending ")
	assert.Contains(t, fmt.Sprintf("%v", state), " TaskPending ")
	for status, name := range map[productdata.TaskStatus]string{
		productdata.TaskPending: "TaskPending", productdata.TaskDone: "TaskDone", productdata.TaskFailed: "TaskFailed",
		productdata.TaskNoCredit: "TaskNoCredit", productdata.TaskNoProduct: "TaskNoProduct", 7: "TaskStatus(7)",
	} {
		assert.Equal(t, name, status.String())
	}
}
