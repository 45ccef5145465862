package reportstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordsParsesColumnsByName(t *testing.T) {
	t.Parallel()
	body := "\ufeffSource,Value,Indicator_Code,Year,Country_Code\n" +
		"synthetic,1.5,NY.GDP.MKTP.CD,2015,US\n" +
		"synthetic,,NY.GDP.MKTP.CD,2016,US\n" +
		"synthetic,..,NY.GDP.MKTP.CD,2017,US\n" +
		"synthetic,-2.25e3,NY.GDP.MKTP.CD,2018,US\n" +
		"synthetic,0,NY.GDP.MKTP.CD,2019,US\n"
	r := &Report{Format: FormatCSV, Body: []byte(body)}
	recs, err := r.Records()
	require.NoError(t, err)
	require.Len(t, recs, 5)
	assert.Equal(t, Record{Economy: "US", Year: 2015, Indicator: "NY.GDP.MKTP.CD", Value: testkit.Ptr(1.5)}, recs[0])
	assert.Nil(t, recs[1].Value, "empty cell is absent")
	assert.Nil(t, recs[2].Value, `".." is absent`)
	assert.Equal(t, -2250.0, *recs[3].Value)
	require.NotNil(t, recs[4].Value, "a real zero stays a zero")
	assert.Equal(t, 0.0, *recs[4].Value)
}

func TestRecordsErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body   string
		line   int
		column string
	}{
		"missing value column": {"economy,year,indicator\nUS,2015,X\n", 0, "value"},
		"missing year column":  {"economy,indicator,value\nUS,X,1\n", 0, "year"},
		"bad year":             {"economy,year,indicator,value\nUS,2015,X,1\nUS,twenty,X,1\n", 3, "year"},
		"bad value":            {"economy,year,indicator,value\nUS,2015,X,lots\n", 2, "value"},
		"empty economy":        {"economy,year,indicator,value\n,2015,X,1\n", 2, "economy"},
		"empty report":         {"", 0, "(all)"},
	}
	for name, tc := range tests {
		r := &Report{Format: FormatCSV, Body: []byte(tc.body)}
		_, err := r.Records()
		var ce *CSVError
		require.True(t, errors.As(err, &ce), "%s: %v", name, err)
		assert.Equal(t, tc.line, ce.Line, name)
		assert.Equal(t, tc.column, ce.Column, name)
	}

	_, err := (&Report{Format: FormatCSV, Body: []byte("economy,year,indicator,value\n\"US,2015\n")}).Records()
	require.Error(t, err, "malformed CSV")
	_, err = (&Report{Format: FormatHTML, Body: []byte("<html>")}).Records()
	require.Error(t, err)
}

func TestScanRecordsStopsOnBreakAndAfterAnError(t *testing.T) {
	t.Parallel()
	body := "economy,year,indicator,value\nUS,2015,X,1\nUS,2016,X,2\nUS,bad,X,3\nUS,2018,X,4\n"
	n := 0
	for _, err := range ScanRecords(strings.NewReader(body)) {
		require.NoError(t, err)
		n++
		break
	}
	assert.Equal(t, 1, n)

	var got []int
	errs := 0
	for rec, err := range ScanRecords(strings.NewReader(body)) {
		if err != nil {
			errs++
			continue
		}
		got = append(got, rec.Year)
	}
	assert.Equal(t, []int{2015, 2016}, got)
	assert.Equal(t, 1, errs, "the error is yielded once, then the scan stops")
}
