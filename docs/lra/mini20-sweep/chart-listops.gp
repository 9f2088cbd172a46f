# chart-listops.svg and chart-listops.png, written by attnzoo; rerun with `gnuplot chart-listops.gp` in this folder.
$f0 << EOD
"full" 0.4228 36.3167 7 0.11547
"flash" 1.0498 36.3 1.37625 0.0866025
EOD
$f1 << EOD
"bigbird" 3.2823 36.0667 2.02453 0.765398
"global" 10.6246 36.2167 1.37737 1.44943
"local" 6.6331 35.7667 1.54717 0.57735
"longformer" 6.0202 36.05 1.57035 0.785812
"strided" 7.3174 36.1167 1.45393 0.529937
EOD
$f2 << EOD
"compressed" 2.1489 35.8 1.42402 0.458258
"efficient" 12.379 35.9333 1.3543 0.678847
"linear" 8.3155 17.0833 1.36165 0.404145
"linformer" 3.836 35.6833 1.66584 0.680686
"performer" 5.9607 36.4 1.62235 0.35
"rfa" 4.2156 17.1167 1.97844 0.46188
"synthesizer" 0.5074 34.6333 1.39291 3.32916
EOD
$f3 << EOD
"fnet" 19.1207 36.0667 1.10067 0.765398
"gmlp" 0.796 35.75 3.2061 0.672681
"mixer" 16.6036 35.9 1.13573 0.589491
EOD
$f4 << EOD
"reformer" 2.5903 16.9667 1.7434 0.202073
"routing" 3.5943 35.55 1.42833 0.304138
"sinkhorn" 5.8349 36.6833 1.63932 0.40104
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-listops.svg'
set title "ListOps on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): ListOps"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [13.6548:40.9625]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,36.3167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,36.0667 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,35.8 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,35.9333 center offset char 0,-0.955583 front
set label 5 "flash" at 1.0498,36.3 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,36.0667 center offset char 2.94027,0 front
set label 7 "global" at 10.6246,36.2167 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,35.75 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,17.0833 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,35.6833 center offset char 0,-1.02204 front
set label 11 "local" at 6.6331,35.7667 center offset char 0,-0.996729 front
set label 12 "longformer" at 6.0202,36.05 center offset char 0,2.00167 front
set arrow from first 6.0202,36.3547 to first 6.0202,37.1385 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,35.9 center offset char 3.45429,-0.908955 front
set label 14 "performer" at 5.9607,36.4 center offset char 0,3.01277 front
set arrow from first 5.9607,36.7131 to first 5.9607,38.2555 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,16.9667 center offset char 0,1.03859 front
set label 16 "rfa" at 4.2156,17.1167 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,35.55 center offset char 0,-1.97138 front
set arrow from first 3.5943,35.2683 to first 3.5943,34.4845 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 5.8349,36.6833 center offset char 0,4.01639 front
set arrow from first 5.8349,36.9992 to first 5.8349,39.3001 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,36.1167 center offset char 0,-2.97684 front
set arrow from first 7.3174,35.8308 to first 7.3174,34.2884 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,34.6333 center offset char 0,-0.963821 front
set arrow from graph 0, first 16.85 to graph 1, first 16.85 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 16.85 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-listops.png'
set title "ListOps on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): ListOps"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [13.6548:40.9625]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,36.3167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,36.0667 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,35.8 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,35.9333 center offset char 0,-0.955583 front
set label 5 "flash" at 1.0498,36.3 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,36.0667 center offset char 2.94027,0 front
set label 7 "global" at 10.6246,36.2167 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,35.75 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,17.0833 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,35.6833 center offset char 0,-1.02204 front
set label 11 "local" at 6.6331,35.7667 center offset char 0,-0.996729 front
set label 12 "longformer" at 6.0202,36.05 center offset char 0,2.00167 front
set arrow from first 6.0202,36.3547 to first 6.0202,37.1385 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,35.9 center offset char 3.45429,-0.908955 front
set label 14 "performer" at 5.9607,36.4 center offset char 0,3.01277 front
set arrow from first 5.9607,36.7131 to first 5.9607,38.2555 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,16.9667 center offset char 0,1.03859 front
set label 16 "rfa" at 4.2156,17.1167 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,35.55 center offset char 0,-1.97138 front
set arrow from first 3.5943,35.2683 to first 3.5943,34.4845 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 5.8349,36.6833 center offset char 0,4.01639 front
set arrow from first 5.8349,36.9992 to first 5.8349,39.3001 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,36.1167 center offset char 0,-2.97684 front
set arrow from first 7.3174,35.8308 to first 7.3174,34.2884 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,34.6333 center offset char 0,-0.963821 front
set arrow from graph 0, first 16.85 to graph 1, first 16.85 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 16.85 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
