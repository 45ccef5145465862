package productdatatest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// taskKind tells the two asynchronous flows apart.
type taskKind int

// The asynchronous flows.
const (
	refreshTask taskKind = iota + 1 // ProductRealtimeRequest
	reviewTask                      // ProductReviewsCollection
)

// The task statuses of the status strings "<ASIN>:<status>:<finish time or -->".
const (
	statusRunning = 0
	statusDone    = 1
	statusFailed  = 3
	statusMissing = 5
)

// finishLayout is the form of the finish time in status strings (UTC).
const finishLayout = "2006-01-02 15:04:05"

// recollectAfter is how long after a successful review collection the same product cannot be
// collected again.
const recollectAfter = 2 * time.Hour

// task is one asynchronous task.
type task struct {
	id      string
	kind    taskKind
	site    int
	asin    string
	created time.Time
	done    time.Time // when it finishes
	fails   bool
	// stars are the star filters of a review collection (none: every star); pages the pages
	// collected per filter, 10 reviews each.
	stars []int
	pages int
}

// taskKey finds the latest task of a flow for a product on a site.
type taskKey struct {
	kind taskKind
	site int
	asin string
}

// status returns the task's status at now.
func (t *task) status(now time.Time) int {
	switch {
	case now.Before(t.done):
		return statusRunning
	case t.fails:
		return statusFailed
	default:
		return statusDone
	}
}

// statusString renders the task as the status queries list it.
func (t *task) statusString(now time.Time) string {
	st := t.status(now)
	finish := "--"
	if st == statusDone {
		finish = t.done.UTC().Format(finishLayout)
	}
	return fmt.Sprintf("%s:%d:%s", t.asin, st, finish)
}

// newTask registers a task of kind for asin, finishing after the ASIN's task duration.
func (s *Server) newTask(kind taskKind, r *request, asin string) *task {
	d, ok := s.cfg.taskDurations[asin]
	if !ok {
		d = s.cfg.taskDuration
	}
	s.nextTaskID++
	t := &task{
		id:      strconv.Itoa(s.nextTaskID),
		kind:    kind,
		site:    r.site.code,
		asin:    asin,
		created: r.now,
		done:    r.now.Add(d),
		fails:   strings.HasPrefix(asin, FailingASINPrefix),
	}
	s.tasks = append(s.tasks, t)
	s.latest[taskKey{kind, r.site.code, asin}] = t
	return t
}

// lastRefresh returns when a product was last refreshed: its generated age (1 to 72 hours
// before the fake started) or the end of its latest successful refresh task.
func (s *Server) lastRefresh(siteCode int, asin string, now time.Time) time.Time {
	last := s.created.Add(-time.Duration(1+hash("age", asin)%72) * time.Hour)
	if t := s.latest[taskKey{refreshTask, siteCode, asin}]; t != nil && t.status(now) == statusDone && t.done.After(last) {
		last = t.done
	}
	return last
}

// realtimeRequest is ProductRealtimeRequest {ASIN, Update}: the product at once (code 0)
// when it was refreshed within Update hours, else code 99 while a refresh task runs.
func realtimeRequest(s *Server, r *request) result {
	asin, err := r.p.asin()
	if err != nil {
		return paramFailure(err)
	}
	update, err := r.p.integer("Update", 24, 1, 120)
	if err != nil {
		return paramFailure(err)
	}
	if strings.HasPrefix(asin, MissingASINPrefix) {
		return failure(codeNoProduct, msgNoProduct)
	}
	key := taskKey{refreshTask, r.site.code, asin}
	if t := s.latest[key]; t != nil {
		switch t.status(r.now) {
		case statusRunning:
			return failure(codeCollecting, msgCollecting)
		case statusFailed:
			delete(s.latest, key) // reported once; the next request starts a new refresh
			return failure(codeCollectFailed, msgCollectFailed)
		}
	}
	if r.now.Sub(s.lastRefresh(r.site.code, asin, r.now)) < time.Duration(update)*time.Hour {
		return success(product(r.site, asin, s.created, r.now))
	}
	s.newTask(refreshTask, r, asin)
	return failure(codeCollecting, msgCollecting)
}

// realtimeStatus is ProductRealtimeRequestStatusQuery {ASINs}: one status string per listed
// ASIN that has a refresh task on the site (status 5 for an ASIN that does not exist), in the
// order asked; code 11 when none has.
func realtimeStatus(s *Server, r *request) result {
	list, err := r.p.strList("ASINs")
	if err != nil {
		return paramFailure(err)
	}
	var out []string
	for _, raw := range list {
		asin, err := checkASIN(raw)
		if err != nil {
			return paramFailure(err)
		}
		if strings.HasPrefix(asin, MissingASINPrefix) {
			out = append(out, fmt.Sprintf("%s:%d:--", asin, statusMissing))
			continue
		}
		if t := s.latest[taskKey{refreshTask, r.site.code, asin}]; t != nil {
			out = append(out, t.statusString(r.now))
		}
	}
	if len(out) == 0 {
		return failure(codeNoData, msgNoData)
	}
	return success(out)
}

// reviewStars are the accepted star filters: 1 to 5, 10 (1 to 3 stars), 11 (4 and 5 stars).
var reviewStars = []int{1, 2, 3, 4, 5, 10, 11}

// parseStars reads a Star filter: "1,2,3" for a collection, one value for a query.
func parseStars(s string) ([]int, error) {
	var stars []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || !slices.Contains(reviewStars, n) {
			return nil, badParam("Star %q is not a list of 1, 2, 3, 4, 5, 10 or 11", s)
		}
		if !slices.Contains(stars, n) {
			stars = append(stars, n)
		}
	}
	return stars, nil
}

// reviewsCollection is ProductReviewsCollection {ASIN, Page, CollectType, Star}: starts a
// collection task and answers its id (a string) as Data. While a collection of the product
// runs, or within two hours of its success, it answers code 12 with that task's id.
func reviewsCollection(s *Server, r *request) result {
	asin, err := r.p.asin()
	if err != nil {
		return paramFailure(err)
	}
	pages, err := r.p.integer("Page", 1, 1, 10)
	if err != nil {
		return paramFailure(err)
	}
	if _, err := r.p.integer("CollectType", 0, 0, 1); err != nil {
		return paramFailure(err)
	}
	starText, _, err := r.p.str("Star")
	if err != nil {
		return paramFailure(err)
	}
	var stars []int
	if starText != "" {
		if stars, err = parseStars(starText); err != nil {
			return paramFailure(err)
		}
	}
	if strings.HasPrefix(asin, MissingASINPrefix) {
		return failure(codeNoProduct, msgNoProduct)
	}
	if t := s.latest[taskKey{reviewTask, r.site.code, asin}]; t != nil {
		st := t.status(r.now)
		if st == statusRunning || st == statusDone && r.now.Before(t.done.Add(recollectAfter)) {
			return result{code: codeExists, message: msgExists, data: t.id, charge: true}
		}
	}
	t := s.newTask(reviewTask, r, asin)
	t.stars, t.pages = stars, pages
	return success(t.id)
}

// serviceZone is the service's time zone (China Standard Time), in which a review
// collection's QueryDate is the day it was created.
var serviceZone = time.FixedZone("UTC+8", 8*60*60)

// serviceDay returns the day of t in the service's zone, as a date in UTC (the form
// params.date returns).
func serviceDay(t time.Time) time.Time {
	y, m, d := t.In(serviceZone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// reviewsStatus is ProductReviewsCollectionStatusQuery {QueryDate}: the status strings of the
// site's review collections created on that day of the service's zone (default: today), in
// creation order; code 11 when there are none.
func reviewsStatus(s *Server, r *request) result {
	date, ok, err := r.p.date("QueryDate", time.DateOnly, "yyyy-MM-dd")
	if err != nil {
		return paramFailure(err)
	}
	if !ok {
		date = serviceDay(r.now)
	}
	var out []string
	for _, t := range s.tasks {
		if t.kind == reviewTask && t.site == r.site.code && serviceDay(t.created).Equal(date) {
			out = append(out, t.statusString(r.now))
		}
	}
	if len(out) == 0 {
		return failure(codeNoData, msgNoData)
	}
	return success(out)
}

// reviewObject is one review of ProductReviewsQuery.
type reviewObject struct {
	ReviewID     string   `json:"ReviewId"`
	Title        string   `json:"Title"`
	Content      string   `json:"Content"`
	Star         int      `json:"Star"`
	IsVerified   bool     `json:"IsVerified"`
	ReviewDate   string   `json:"ReviewDate"`
	ReviewerName string   `json:"ReviewerName"`
	HelpfulCount int      `json:"HelpfulCount"`
	ImageUrls    []string `json:"ImageUrls"`
	CollectedAt  string   `json:"CollectedAt"`
}

// Review texts by star (index 0 is one star).
var (
	reviewTitles = []string{"Stopped working after a week", "Not as described", "Does the job, nothing more", "Solid value for the price", "Exactly what I needed"}
	reviewBodies = []string{
		"It broke within days and support never answered. I would not buy it again.",
		"The quality is lower than the photos suggest and the fit is off.",
		"Works as expected, but the finish feels cheap and the instructions are thin.",
		"Good build, arrived quickly, and it has held up well so far.",
		"Excellent quality. I have used it every day since it arrived and would buy it again.",
	}
	reviewerNames = []string{"Jordan P.", "Sam K.", "Alex R.", "Taylor M.", "Chris L.", "Morgan D.", "Jamie W.", "Casey B."}
)

// reviews returns the reviews a finished collection task gathered: 10 per page per star
// filter, newest first.
func (t *task) reviews() []reviewObject {
	filters := t.stars
	if len(filters) == 0 {
		filters = []int{0}
	}
	var out []reviewObject
	for fi, filter := range filters {
		for i := range t.pages * 10 {
			n := fi*t.pages*10 + i
			h := hash("review", t.asin, strconv.Itoa(n))
			star := reviewStar(filter, h)
			date := t.done.Add(-time.Duration(n)*13*time.Hour - time.Duration(h%48)*time.Hour)
			var images []string
			if h>>8%5 == 0 {
				images = []string{"https://images.productdata.invalid/R/" + ident(11, "review-photo", t.asin, strconv.Itoa(n)) + ".jpg"}
			}
			out = append(out, reviewObject{
				ReviewID:     "R" + ident(13, "review-id", t.asin, strconv.Itoa(n)),
				Title:        reviewTitles[star-1],
				Content:      reviewBodies[star-1],
				Star:         star,
				IsVerified:   h>>12%4 != 0,
				ReviewDate:   date.UTC().Format(time.DateOnly),
				ReviewerName: pick(h>>16, reviewerNames),
				HelpfulCount: int(h >> 20 % 60),
				ImageUrls:    images,
				CollectedAt:  t.done.UTC().Format(finishLayout),
			})
		}
	}
	slices.SortStableFunc(out, func(a, b reviewObject) int { return strings.Compare(b.ReviewDate, a.ReviewDate) })
	return out
}

// reviewStar chooses a review's star for a filter (0: any star, mostly good ones).
func reviewStar(filter int, h uint64) int {
	switch filter {
	case 10:
		return 1 + int(h%3)
	case 11:
		return 4 + int(h%2)
	case 0:
		return pick(h, []int{5, 5, 5, 4, 4, 3, 2, 1})
	default:
		return filter
	}
}

// matchesStar reports whether a review passes a query's Star filter (0: no filter).
func matchesStar(star, filter int) bool {
	switch filter {
	case 0:
		return true
	case 10:
		return star <= 3
	case 11:
		return star >= 4
	default:
		return star == filter
	}
}

// reviewsQuery is ProductReviewsQuery {ASIN, Page, Star}: a page of the reviews of the
// product's latest collection. Code 13 before any collection, 20 while it runs, 98 when it
// failed, 11 past the last page.
func reviewsQuery(s *Server, r *request) result {
	asin, err := r.p.asin()
	if err != nil {
		return paramFailure(err)
	}
	page, err := r.p.page()
	if err != nil {
		return paramFailure(err)
	}
	filter, err := r.p.integer("Star", 0, 1, 11)
	if err != nil || filter != 0 && !slices.Contains(reviewStars, filter) {
		return paramFailure(badParam("Star must be 1, 2, 3, 4, 5, 10 or 11"))
	}
	if strings.HasPrefix(asin, MissingASINPrefix) {
		return failure(codeNoProduct, msgNoProduct)
	}
	t := s.latest[taskKey{reviewTask, r.site.code, asin}]
	if t == nil {
		return failure(codeNoReviews, msgNoReviews)
	}
	switch t.status(r.now) {
	case statusRunning:
		return failure(codeCalculating, msgCalculating)
	case statusFailed:
		return failure(codeCollectFailed, msgCollectFailed)
	}
	var matching []reviewObject
	for _, rv := range t.reviews() {
		if matchesStar(rv.Star, filter) {
			matching = append(matching, rv)
		}
	}
	items, ok := paginate(matching, page)
	if !ok {
		return failure(codeNoData, msgNoData)
	}
	return success(items)
}
